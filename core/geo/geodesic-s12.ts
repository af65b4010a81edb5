import geodesic from 'geographiclib-geodesic';

// GeographicLib's Geodesic.Inverse on WGS84, asked for S12 alone (outmask AREA | LONG_UNROLL): the area between
// an edge and the equator, which ringAreaM2 sums over a ring's edges. It is the library's InverseInt, InverseStart,
// Lambda12, Lengths and series (geographiclib-geodesic 2.2.0, src/Geodesic.js and src/Math.js), the same
// floating-point operations in the same order, so S12 is bit for bit the library's (geodesic-s12.test.ts checks
// that on random and degenerate edges). What differs is the cost: the library allocates about a hundred objects per
// edge (result objects, coefficient arrays, {s, c} and {d, e} pairs, and a boxed number for every double passed to
// or returned from a function the compiler does not inline), and an import validates millions of edges. Here
// Lambda12 is written out inside the Newton loop, the small helpers are local so that they inline, and what passes
// between the remaining functions goes through one Float64Array. Only what S12 depends on is computed (no
// distance, azimuths or scales), and the branches for f < 0 are left out: WGS84 has f > 0.

interface Ellipsoid {
  a: number; f: number; _f1: number; _e2: number; _ep2: number; _n: number; _c2: number; _etol2: number;
  _A3x: number[]; _C3x: number[]; _C4x: number[];
}
const E = (geodesic.Geodesic as unknown as { WGS84: Ellipsoid }).WGS84;
const { a, f, _f1: f1, _e2: e2, _ep2: ep2, _n: n, _c2: c2, _etol2: etol2 } = E;
const tiny = (geodesic.Geodesic as unknown as { tiny_: number }).tiny_;
const DEGREE = Math.PI / 180;
const tol0 = Math.pow(0.5, 52);
const tol1 = 200 * tol0;
const tol2 = Math.sqrt(tol0);
const tolb = tol0;
const xthresh = 1000 * tol2;
const maxit1 = 20;
const maxit2 = maxit1 + 53 + 10;

// The series' coefficients: the library's tables (private to it, copied here) and the WGS84 instance's own.
const A1M1 = new Float64Array([1, 4, 64, 0, 256]);
const C1 = new Float64Array([-1, 6, -16, 32, -9, 64, -128, 2048, 9, -16, 768, 3, -5, 512, -7, 1280, -7, 2048]);
const A2M1 = new Float64Array([-11, -28, -192, 0, 256]);
const C2 = new Float64Array([1, 2, 16, 32, 35, 64, 384, 2048, 15, 80, 768, 7, 35, 512, 63, 1280, 77, 2048]);
const A3X = new Float64Array(E._A3x);
const C3X = new Float64Array(E._C3x);
const C4X = new Float64Array(E._C4x);
// The library's coefficient arrays, with its lengths (sinCosSeries reads c.length): index 0 of C1a and C2a is unused.
const C1a = new Float64Array(7);
const C2a = new Float64Array(7);
const C3a = new Float64Array(6);
const C4a = new Float64Array(6);

const sq = (x: number) => x * x;
const hypot = (x: number, y: number) => Math.sqrt(x * x + y * y);
const copysign = (x: number, y: number) => Math.abs(x) * (y < 0 || (y === 0 && 1 / y < 0) ? -1 : 1);
// `%` on doubles is a call to C's fmod, the costliest step of an edge's set-up; every parcel's angles lie within
// (-360, 360), where fmod(x, 360) is x itself (exact, -0 kept), so it is skipped there: the same doubles, cheaper.
const remainder = (x: number, y: number) => {
  if (!(x > -y && x < y)) x %= y;
  return x < -y / 2 ? x + y : (x < y / 2 ? x : x - y);
};
function angRound(x: number): number {
  const z = 1 / 16;
  let y = Math.abs(x);
  y = y < z ? z - (z - y) : y;
  return copysign(y, x);
}
function polyval(N: number, p: Float64Array, s: number, x: number): number {
  let y = N < 0 ? 0 : p[s++]!;
  while (--N >= 0) y = y * x + p[s++]!;
  return y;
}
function sinCosSeries(sinp: boolean, sinx: number, cosx: number, c: Float64Array): number {
  let k = c.length;
  let m = k - (sinp ? 1 : 0);
  const ar = 2 * (cosx - sinx) * (cosx + sinx);
  let y0 = m & 1 ? c[--k]! : 0, y1 = 0;
  m = Math.floor(m / 2);
  while (m--) {
    y1 = ar * y0 - y1 + c[--k]!;
    y0 = ar * y1 - y0 + c[--k]!;
  }
  return sinp ? 2 * sinx * cosx * y0 : cosx * (y0 - y1);
}
/** C1f and C2f: c[1..6] from a table of six polynomials in eps². */
function cSeries(eps: number, table: Float64Array, c: Float64Array): void {
  const eps2 = sq(eps);
  let d = eps, o = 0;
  for (let l = 1; l <= 6; ++l) {
    const p = Math.floor((6 - l) / 2);
    c[l] = d * polyval(p, table, o, eps2) / table[o + p + 1]!;
    o += p + 2;
    d *= eps;
  }
}
const A3f = (eps: number) => polyval(5, A3X, 0, eps);
function C3f(eps: number): void {
  let mult = 1, o = 0;
  for (let l = 1; l < 6; ++l) {
    const p = 6 - l - 1;
    mult *= eps;
    C3a[l] = mult * polyval(p, C3X, o, eps);
    o += p + 1;
  }
}
function C4f(eps: number): void {
  let mult = 1, o = 0;
  for (let l = 0; l < 6; ++l) {
    const p = 6 - l - 1;
    C4a[l] = mult * polyval(p, C4X, o, eps);
    o += p + 1;
    mult *= eps;
  }
}

// Numbers passed between the functions below, by slot: a double in a typed array is never boxed.
const r = new Float64Array(16);
const SIN = 0, COS = 1, D = 2, E_ = 3, EPS = 4, SIG12 = 5, SSIG1 = 6, CSIG1 = 7, DN1 = 8, SSIG2 = 9, CSIG2 = 10, DN2 = 11;
const ST_SALP1 = 12, ST_CALP1 = 13, ST_SALP2 = 14, ST_CALP2 = 15;

/** m.AngDiff(x, y) into r[D], r[E_] (m.sum written out twice). */
function angDiff(x: number, y: number): void {
  let u = remainder(-x, 360), v = remainder(y, 360);
  let s = u + v, up = s - v, vpp = s - up;
  up -= u;
  vpp -= v;
  let t = s ? 0 - (up + vpp) : s;
  u = remainder(s, 360);
  v = t;
  s = u + v;
  up = s - v;
  vpp = s - up;
  up -= u;
  vpp -= v;
  t = s ? 0 - (up + vpp) : s;
  r[D] = s === 0 || Math.abs(s) === 180 ? copysign(s, t === 0 ? y - x : -t) : s;
  r[E_] = t;
}

/** m.sincosd(x) (t NaN) or m.sincosde(x, t) into r[SIN], r[COS]. */
function sincosd(x: number, t: number): void {
  let d = x > -360 && x < 360 ? x : x % 360; // x itself there (see remainder)
  const q = Math.round(d / 90);
  d = t !== t ? d - 90 * q : angRound((d - 90 * q) + t);
  const rad = d * DEGREE;
  let s = Math.sin(rad), c = Math.cos(rad);
  if (Math.abs(d) === 45) {
    c = Math.sqrt(0.5);
    s = copysign(c, rad);
  } else if (Math.abs(d) === 30) {
    c = Math.sqrt(0.75);
    s = copysign(0.5, rad);
  }
  let sinx: number, cosx: number;
  switch (q & 3) {
    case 0: sinx = s; cosx = c; break;
    case 1: sinx = c; cosx = -s; break;
    case 2: sinx = -s; cosx = -c; break;
    default: sinx = -c; cosx = s; break;
  }
  cosx += 0;
  if (sinx === 0) sinx = copysign(sinx, t !== t ? x : x + t);
  r[SIN] = sinx;
  r[COS] = cosx;
}

// The last two latitudes' sincosd: the edges of a ring share their vertices, so each latitude (as the edge
// transforms it: same sign for a ring in one hemisphere) comes twice in a row. Keyed on the exact value, -0 apart.
const lastLat = new Float64Array([NaN, NaN]);
const lastSinCos = new Float64Array(4);
let lastSlot = 0;
function latSincosd(x: number): void {
  for (let k = 0; k < 2; k++) {
    const c = lastLat[k]!;
    if (x === c && (x !== 0 || 1 / x === 1 / c)) {
      r[SIN] = lastSinCos[2 * k]!;
      r[COS] = lastSinCos[2 * k + 1]!;
      return;
    }
  }
  sincosd(x, NaN);
  lastSlot ^= 1;
  lastLat[lastSlot] = x;
  lastSinCos[2 * lastSlot] = r[SIN]!;
  lastSinCos[2 * lastSlot + 1] = r[COS]!;
}

function astroid(x: number, y: number): number {
  const p = sq(x), q = sq(y), rr = (p + q - 1) / 6;
  if (q === 0 && rr <= 0) return 0;
  const S = p * q / 4, r2 = sq(rr), r3 = rr * r2, disc = S * (S + 2 * r3);
  let u = rr;
  if (disc >= 0) {
    let T3 = S + r3;
    T3 += T3 < 0 ? -Math.sqrt(disc) : Math.sqrt(disc);
    const T = Math.cbrt(T3);
    u += T + (T !== 0 ? r2 / T : 0);
  } else {
    const ang = Math.atan2(Math.sqrt(-disc), -(S + r3));
    u += 2 * rr * Math.cos(ang / 3);
  }
  const v = Math.sqrt(sq(u) + q);
  const uv = u < 0 ? q / (v - u) : u + v;
  const w = (uv - q) / (2 * v);
  return uv / (Math.sqrt(uv + sq(w)) + w);
}

/**
 * Lengths(eps, sig12, ssig1, csig1, dn1, ssig2, csig2, dn2, …, REDUCEDLENGTH).m12b, its inputs in r. With `distance`
 * (DISTANCE | REDUCEDLENGTH, as the meridian case asks) J12 is summed the other way, as the library does then.
 */
function reducedLength(distance: boolean): number {
  const eps = r[EPS]!, sig12 = r[SIG12]!, ssig1 = r[SSIG1]!, csig1 = r[CSIG1]!, ssig2 = r[SSIG2]!, csig2 = r[CSIG2]!;
  let A1 = (polyval(3, A1M1, 0, sq(eps)) / A1M1[4]! + eps) / (1 - eps);
  cSeries(eps, C1, C1a);
  let A2 = (polyval(3, A2M1, 0, sq(eps)) / A2M1[4]! - eps) / (1 + eps);
  cSeries(eps, C2, C2a);
  const m0x = A1 - A2;
  A2 = 1 + A2;
  A1 = 1 + A1;
  let J12: number;
  if (distance) {
    const B1 = sinCosSeries(true, ssig2, csig2, C1a) - sinCosSeries(true, ssig1, csig1, C1a);
    const B2 = sinCosSeries(true, ssig2, csig2, C2a) - sinCosSeries(true, ssig1, csig1, C2a);
    J12 = m0x * sig12 + (A1 * B1 - A2 * B2);
  } else {
    for (let l = 1; l <= 6; ++l) C2a[l] = A1 * C1a[l]! - A2 * C2a[l]!;
    J12 = m0x * sig12 + (sinCosSeries(true, ssig2, csig2, C2a) - sinCosSeries(true, ssig1, csig1, C2a));
  }
  return r[DN2]! * (csig1 * ssig2) - r[DN1]! * (ssig1 * csig2) - csig1 * csig2 * J12;
}

/** InverseStart: r[SIG12] (-1 unless a short line was solved), r[ST_SALP1], r[ST_CALP1]; for a short line also r[ST_SALP2], r[ST_CALP2], and dnm (returned). */
function inverseStart(sbet1: number, cbet1: number, sbet2: number, cbet2: number, lam12: number, slam12: number, clam12: number): number {
  const sbet12 = sbet2 * cbet1 - cbet2 * sbet1;
  const cbet12 = cbet2 * cbet1 + sbet2 * sbet1;
  let dnm = 0;
  r[SIG12] = -1;
  let sbet12a = sbet2 * cbet1;
  sbet12a += cbet2 * sbet1;
  const shortline = cbet12 >= 0 && sbet12 < 0.5 && cbet2 * lam12 < 0.5;
  let somg12: number, comg12: number;
  if (shortline) {
    let sbetm2 = sq(sbet1 + sbet2);
    sbetm2 /= sbetm2 + sq(cbet1 + cbet2);
    dnm = Math.sqrt(1 + ep2 * sbetm2);
    const omg12 = lam12 / (f1 * dnm);
    somg12 = Math.sin(omg12);
    comg12 = Math.cos(omg12);
  } else {
    somg12 = slam12;
    comg12 = clam12;
  }
  let salp1 = cbet2 * somg12;
  let calp1 = comg12 >= 0 ? sbet12 + cbet2 * sbet1 * sq(somg12) / (1 + comg12) : sbet12a - cbet2 * sbet1 * sq(somg12) / (1 - comg12);
  const ssig12 = hypot(salp1, calp1);
  const csig12 = sbet1 * sbet2 + cbet1 * cbet2 * comg12;
  if (shortline && ssig12 < etol2) {
    let salp2 = cbet1 * somg12;
    let calp2 = sbet12 - cbet1 * sbet2 * (comg12 >= 0 ? sq(somg12) / (1 + comg12) : 1 - comg12);
    const t = hypot(salp2, calp2);
    salp2 /= t;
    calp2 /= t;
    r[ST_SALP2] = salp2;
    r[ST_CALP2] = calp2;
    r[SIG12] = Math.atan2(ssig12, csig12);
  } else if (Math.abs(n) > 0.1 || csig12 >= 0 || ssig12 >= 6 * Math.abs(n) * Math.PI * sq(cbet1)) {
    // Nothing to do, zeroth order spherical approximation is OK.
  } else {
    // Scale lam12 and bet2 to x, y coordinate system where antipodal point is at origin (f > 0).
    const lam12x = Math.atan2(-slam12, -clam12);
    const k2 = sq(sbet1) * ep2;
    const eps = k2 / (2 * (1 + Math.sqrt(1 + k2)) + k2);
    const lamscale = f * cbet1 * A3f(eps) * Math.PI;
    const betscale = lamscale * cbet1;
    const x = lam12x / lamscale;
    const y = sbet12a / betscale;
    if (y > -tol1 && x > -1 - xthresh) {
      salp1 = Math.min(1, -x);
      calp1 = -Math.sqrt(1 - sq(salp1));
    } else {
      const k = astroid(x, y);
      const omg12a = lamscale * (-x * k / (1 + k));
      somg12 = Math.sin(omg12a);
      comg12 = -Math.cos(omg12a);
      salp1 = cbet2 * somg12;
      calp1 = sbet12a - cbet2 * sbet1 * sq(somg12) / (1 - comg12);
    }
  }
  if (!(salp1 <= 0)) {
    const t = hypot(salp1, calp1);
    salp1 /= t;
    calp1 /= t;
  } else {
    salp1 = 1;
    calp1 = 0;
  }
  r[ST_SALP1] = salp1;
  r[ST_CALP1] = calp1;
  return dnm;
}

/** S12 of WGS84.Inverse(lat1, lon1, lat2, lon2, AREA | LONG_UNROLL), in m². */
export function geodesicS12(lat1: number, lon1: number, lat2: number, lon2: number): number {
  lat1 = Math.abs(lat1) > 90 ? NaN : lat1;
  lat2 = Math.abs(lat2) > 90 ? NaN : lat2;
  lat1 = angRound(lat1);
  lat2 = angRound(lat2);
  angDiff(lon1, lon2);
  let lon12 = r[D]!, lon12s = r[E_]!;
  let lonsign = copysign(1, lon12);
  lon12 *= lonsign;
  lon12s *= lonsign;
  const lam12 = lon12 * DEGREE;
  sincosd(lon12, lon12s);
  const slam12 = r[SIN]!, clam12 = r[COS]!;
  lon12s = (180 - lon12) - lon12s;
  const swapp = Math.abs(lat1) < Math.abs(lat2) || isNaN(lat2) ? -1 : 1;
  if (swapp < 0) {
    lonsign *= -1;
    const l = lat1;
    lat1 = lat2;
    lat2 = l;
  }
  const latsign = copysign(1, -lat1);
  lat1 *= latsign;
  lat2 *= latsign;

  latSincosd(lat1);
  let sbet1 = f1 * r[SIN]!, cbet1 = r[COS]!;
  let t = hypot(sbet1, cbet1);
  sbet1 /= t;
  cbet1 /= t;
  cbet1 = Math.max(tiny, cbet1);
  latSincosd(lat2);
  let sbet2 = f1 * r[SIN]!, cbet2 = r[COS]!;
  t = hypot(sbet2, cbet2);
  sbet2 /= t;
  cbet2 /= t;
  cbet2 = Math.max(tiny, cbet2);
  if (cbet1 < -sbet1) {
    if (cbet2 === cbet1) sbet2 = copysign(sbet1, sbet2);
  } else if (Math.abs(sbet2) === -sbet1) {
    cbet2 = cbet1;
  }
  const dn1 = Math.sqrt(1 + ep2 * sq(sbet1));
  const dn2 = Math.sqrt(1 + ep2 * sq(sbet2));
  r[DN1] = dn1;
  r[DN2] = dn2;

  let calp1 = 0, salp1 = 0, calp2 = 0, salp2 = 0, omg12 = 0, somg12 = 2, comg12 = 0;
  let meridian = lat1 === -90 || slam12 === 0;
  if (meridian) {
    calp1 = clam12; salp1 = slam12;
    calp2 = 1; salp2 = 0;
    const ssig1 = sbet1, csig1 = calp1 * cbet1, ssig2 = sbet2, csig2 = calp2 * cbet2;
    const sig12 = Math.atan2(Math.max(0, csig1 * ssig2 - ssig1 * csig2), csig1 * csig2 + ssig1 * ssig2);
    r[EPS] = n; r[SIG12] = sig12; r[SSIG1] = ssig1; r[CSIG1] = csig1; r[SSIG2] = ssig2; r[CSIG2] = csig2;
    const m12x = reducedLength(true);
    // The library stays on the meridian unless m12 < 0 (prolate, nearly antipodal); what it zeroes there is not S12.
    if (!(sig12 < tol2 || m12x >= 0)) meridian = false;
  }
  if (!meridian && sbet1 === 0 && (f <= 0 || lon12s >= f * 180)) {
    // Along the equator.
    calp1 = calp2 = 0; salp1 = salp2 = 1;
    omg12 = lam12 / f1;
  } else if (!meridian) {
    const dnm = inverseStart(sbet1, cbet1, sbet2, cbet2, lam12, slam12, clam12);
    salp1 = r[ST_SALP1]!;
    calp1 = r[ST_CALP1]!;
    if (r[SIG12]! >= 0) {
      // Short lines.
      salp2 = r[ST_SALP2]!;
      calp2 = r[ST_CALP2]!;
      omg12 = lam12 / (f1 * dnm);
    } else {
      // Newton's method on alp1 within a shrinking bracket, Lambda12 written out in the loop.
      let salp1a = tiny, calp1a = 1, salp1b = tiny, calp1b = -1, domg12 = 0;
      for (let numit = 0, tripn = false, tripb = false; ; ++numit) {
        if (sbet1 === 0 && calp1 === 0) calp1 = -tiny;
        const salp0 = salp1 * cbet1;
        const calp0 = hypot(calp1, salp1 * sbet1);
        let ssig1 = sbet1, csig1 = calp1 * cbet1;
        const somg1 = salp0 * sbet1, comg1 = csig1;
        t = hypot(ssig1, csig1);
        ssig1 /= t;
        csig1 /= t;
        salp2 = cbet2 !== cbet1 ? salp0 / cbet2 : salp1;
        calp2 = cbet2 !== cbet1 || Math.abs(sbet2) !== -sbet1
          ? Math.sqrt(sq(calp1 * cbet1) + (cbet1 < -sbet1 ? (cbet2 - cbet1) * (cbet1 + cbet2) : (sbet1 - sbet2) * (sbet1 + sbet2))) / cbet2
          : Math.abs(calp1);
        let ssig2 = sbet2, csig2 = calp2 * cbet2;
        const somg2 = salp0 * sbet2, comg2 = csig2;
        t = hypot(ssig2, csig2);
        ssig2 /= t;
        csig2 /= t;
        const sig12 = Math.atan2(Math.max(0, csig1 * ssig2 - ssig1 * csig2), csig1 * csig2 + ssig1 * ssig2);
        const somg12l = Math.max(0, comg1 * somg2 - somg1 * comg2);
        const comg12l = comg1 * comg2 + somg1 * somg2;
        const eta = Math.atan2(somg12l * clam12 - comg12l * slam12, comg12l * clam12 + somg12l * slam12);
        const k2 = sq(calp0) * ep2;
        const eps = k2 / (2 * (1 + Math.sqrt(1 + k2)) + k2);
        C3f(eps);
        const B312 = sinCosSeries(true, ssig2, csig2, C3a) - sinCosSeries(true, ssig1, csig1, C3a);
        domg12 = -f * A3f(eps) * salp0 * (sig12 + B312);
        const v = eta + domg12;
        // Lambda12 goes on to the derivative dv here; it is only used past this test, so it is worked out after it,
        // not for the last iteration (the same numbers, a third fewer reducedLength calls).
        if (tripb || !(Math.abs(v) >= (tripn ? 8 : 1) * tol0) || numit === maxit2) break;
        let dv = 0;
        if (numit < maxit1) {
          if (calp2 === 0) {
            dv = -2 * f1 * dn1 / sbet1;
          } else {
            r[EPS] = eps; r[SIG12] = sig12; r[SSIG1] = ssig1; r[CSIG1] = csig1; r[SSIG2] = ssig2; r[CSIG2] = csig2;
            dv = reducedLength(false);
            dv *= f1 / (calp2 * cbet2);
          }
        }
        if (v > 0 && (numit < maxit1 || calp1 / salp1 > calp1b / salp1b)) {
          salp1b = salp1; calp1b = calp1;
        } else if (v < 0 && (numit < maxit1 || calp1 / salp1 < calp1a / salp1a)) {
          salp1a = salp1; calp1a = calp1;
        }
        if (numit < maxit1 && dv > 0) {
          const dalp1 = -v / dv;
          if (Math.abs(dalp1) < Math.PI) {
            const sdalp1 = Math.sin(dalp1), cdalp1 = Math.cos(dalp1);
            const nsalp1 = salp1 * cdalp1 + calp1 * sdalp1;
            if (nsalp1 > 0) {
              calp1 = calp1 * cdalp1 - salp1 * sdalp1;
              salp1 = nsalp1;
              t = hypot(salp1, calp1);
              salp1 /= t;
              calp1 /= t;
              tripn = Math.abs(v) <= 16 * tol0;
              continue;
            }
          }
        }
        salp1 = (salp1a + salp1b) / 2;
        calp1 = (calp1a + calp1b) / 2;
        t = hypot(salp1, calp1);
        salp1 /= t;
        calp1 /= t;
        tripn = false;
        tripb = (Math.abs(salp1a - salp1) + (calp1a - calp1) < tolb || Math.abs(salp1 - salp1b) + (calp1 - calp1b) < tolb);
      }
      const sdomg12 = Math.sin(domg12), cdomg12 = Math.cos(domg12);
      somg12 = slam12 * cdomg12 - clam12 * sdomg12;
      comg12 = clam12 * cdomg12 + slam12 * sdomg12;
    }
  }

  const salp0 = salp1 * cbet1;
  const calp0 = hypot(calp1, salp1 * sbet1);
  let S12: number;
  if (calp0 !== 0 && salp0 !== 0) {
    let ssig1 = sbet1, csig1 = calp1 * cbet1, ssig2 = sbet2, csig2 = calp2 * cbet2;
    const k2 = sq(calp0) * ep2;
    const eps = k2 / (2 * (1 + Math.sqrt(1 + k2)) + k2);
    const A4 = sq(a) * calp0 * salp0 * e2;
    t = hypot(ssig1, csig1);
    ssig1 /= t;
    csig1 /= t;
    t = hypot(ssig2, csig2);
    ssig2 /= t;
    csig2 /= t;
    C4f(eps);
    S12 = A4 * (sinCosSeries(false, ssig2, csig2, C4a) - sinCosSeries(false, ssig1, csig1, C4a));
  } else {
    S12 = 0;
  }
  if (!meridian && somg12 === 2) {
    somg12 = Math.sin(omg12);
    comg12 = Math.cos(omg12);
  }
  let alp12: number;
  if (!meridian && comg12 > -0.7071 && sbet2 - sbet1 < 1.75) {
    const domg12 = 1 + comg12, dbet1 = 1 + cbet1, dbet2 = 1 + cbet2;
    alp12 = 2 * Math.atan2(somg12 * (sbet1 * dbet2 + sbet2 * dbet1), domg12 * (sbet1 * sbet2 + dbet1 * dbet2));
  } else {
    let salp12 = salp2 * calp1 - calp2 * salp1;
    let calp12 = calp2 * calp1 + salp2 * salp1;
    if (salp12 === 0 && calp12 < 0) {
      salp12 = tiny * calp1;
      calp12 = -1;
    }
    alp12 = Math.atan2(salp12, calp12);
  }
  S12 += c2 * alp12;
  S12 *= swapp * lonsign * latsign;
  return S12 + 0;
}
