// Checks a zip's central directory before anything is inflated: a zip bomb is refused from its declared sizes,
// not discovered by running out of memory. An outside test inflated 6 GB from a 264 KB zip whose entries overlap on
// one stream, 7 GB from a 2 MB zip of a valid .shp beside 2 GiB of zeros, and crashed on a 261 KB KMZ of empty
// elements. Refused here: an entry the import needs that declares more than the per-entry limit, needed entries
// that together declare more than the total limit, a compression ratio no real GIS file reaches, and entries whose
// data overlap (the same compressed bytes counted twice, the trick of overlapping bombs). The inflater is then asked
// for the needed entries only (shapefile.ts), and each inflated size is checked against what was declared.
import { ImportError } from './errors.ts';

export interface ZipLimits {
  /** Largest inflated size of one entry the import reads (bytes). */
  entryBytes: number;
  /** Largest inflated size of all the entries it reads together (bytes). */
  totalBytes: number;
  /** Largest inflated ÷ compressed size of an entry; deflate's own maximum is about 1,032. */
  ratio: number;
}

const GIB = 1024 ** 3;

/** FURROW_IMPORT_MAX_BYTES sets both size limits (default 2 GiB); the ratio bound is fixed. */
export function zipLimits(env: NodeJS.ProcessEnv = process.env): ZipLimits {
  const raw = env.FURROW_IMPORT_MAX_BYTES;
  const n = raw === undefined || raw.trim() === '' ? 2 * GIB : Number(raw);
  if (!Number.isSafeInteger(n) || n < 1) throw new ImportError('unreadable', `FURROW_IMPORT_MAX_BYTES must be a whole number of bytes, not '${raw}'`);
  return { entryBytes: n, totalBytes: n, ratio: 200 };
}

export interface ZipEntry { name: string; compressed: number; size: number; offset: number; method: number }

/** The central directory's entries (no data is read). */
export function zipEntries(b: Uint8Array, fileName: string): ZipEntry[] {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const bad = (why: string) => new ImportError('unreadable', `${fileName} is not a readable zip file: ${why}`);
  // The end-of-central-directory record: within the last 65,557 bytes (22 + a comment of up to 65,535).
  let eocd = -1;
  for (let i = b.length - 22; i >= Math.max(0, b.length - 65_557); i--) {
    if (v.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw bad('no end of central directory');
  const count = v.getUint16(eocd + 10, true);
  let p = v.getUint32(eocd + 16, true);
  if (count === 0xffff || p === 0xffffffff) throw bad('ZIP64 archives are not supported');
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (p + 46 > b.length || v.getUint32(p, true) !== 0x02014b50) throw bad('a damaged central directory');
    const nameLen = v.getUint16(p + 28, true);
    const extraLen = v.getUint16(p + 30, true);
    const commentLen = v.getUint16(p + 32, true);
    entries.push({
      name: new TextDecoder().decode(b.subarray(p + 46, p + 46 + nameLen)),
      method: v.getUint16(p + 10, true), compressed: v.getUint32(p + 20, true), size: v.getUint32(p + 24, true), offset: v.getUint32(p + 42, true),
    });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

const mib = (n: number) => (n < 1024 * 1024 ? `${n} bytes` : `${Math.round(n / 1024 / 1024)} MiB`);

/** Refuses a zip whose entries the import needs could inflate past the limits, or whose entries overlap. */
export function checkZip(b: Uint8Array, fileName: string, needed: (name: string) => boolean, limits: ZipLimits = zipLimits()): void {
  const entries = zipEntries(b, fileName);
  const refuse = (why: string) => new ImportError('zip_too_large', `${fileName}: ${why}; nothing was imported (the limit, FURROW_IMPORT_MAX_BYTES, is ${mib(limits.totalBytes)})`);
  // Every entry's data starts at its local header: two entries whose spans cross share bytes, which no archiver writes.
  const spans = entries.map((e) => ({ e, start: e.offset, end: e.offset + 30 + e.compressed })).sort((x, y) => x.start - y.start);
  for (let i = 1; i < spans.length; i++) {
    if (spans[i]!.start < spans[i - 1]!.end) {
      throw new ImportError('zip_overlapping', `${fileName}: entries ${spans[i - 1]!.e.name} and ${spans[i]!.e.name} overlap (the same bytes counted twice, as in a zip bomb); nothing was imported`);
    }
  }
  let total = 0;
  for (const e of entries.filter((x) => needed(x.name))) {
    if (e.size > limits.entryBytes) throw refuse(`${e.name} would inflate to ${mib(e.size)}`);
    if (e.method !== 0 && e.size > 1024 * 1024 && e.size / Math.max(1, e.compressed) > limits.ratio) {
      throw refuse(`${e.name} would inflate ${Math.round(e.size / Math.max(1, e.compressed))} times (${mib(e.compressed)} to ${mib(e.size)}), more than any real file of its kind`);
    }
    total += e.size;
    if (total > limits.totalBytes) throw refuse(`its layer files would inflate to more than ${mib(limits.totalBytes)} together`);
  }
}

/** After inflating: each entry is exactly the size its directory declared (a lying directory is refused). */
export function checkInflated(entries: Readonly<Record<string, Uint8Array>>, declared: readonly ZipEntry[], fileName: string): void {
  for (const [name, data] of Object.entries(entries)) {
    const d = declared.find((e) => e.name === name);
    if (d && data.length !== d.size) {
      throw new ImportError('unreadable', `${fileName}: ${name} inflated to ${data.length} bytes where the archive declares ${d.size}; nothing was imported`);
    }
  }
}
