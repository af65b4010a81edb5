// Each sentence type read from sentences as real receivers send them (u-blox, Trimble and SiRF manuals' examples,
// checksums and all), and each checksum rule.
import { describe, expect, it } from 'vitest';
import { angle, nmeaChecksum, nmeaSentence, parseGga, parseGsa, parseGst, parseGsv, parseRmc, parseSentence, timeOfDay } from './nmea.ts';

const fields = (line: string) => parseSentence(line)!.fields;

describe('checksum', () => {
  it('is the XOR of the body as two upper-case hex digits', () => {
    expect(nmeaChecksum('GPGGA,092725.00,4717.11399,N,00833.91590,E,1,08,1.01,499.6,M,48.0,M,,')).toBe('5B');
    expect(nmeaChecksum('')).toBe('00');
    expect(nmeaSentence('GPTXT,01')).toMatch(/^\$GPTXT,01\*[0-9A-F]{2}$/);
  });
  it('accepts a right checksum in either case, refuses a wrong, missing or malformed one', () => {
    const good = '$GPGGA,092725.00,4717.11399,N,00833.91590,E,1,08,1.01,499.6,M,48.0,M,,*5B';
    expect(parseSentence(good)).toMatchObject({ talker: 'GP', type: 'GGA' });
    const lower = nmeaSentence('GPRMC,083559.00,A,4717.11437,N,00833.91522,E,0.004,77.52,091202,,,A').replace(/\*(..)$/, (_, h: string) => `*${h.toLowerCase()}`);
    expect(parseSentence(lower)).not.toBeNull();
    expect(parseSentence(good.replace('*5B', '*5C'))).toBeNull();
    expect(parseSentence(good.replace('4717', '4718'))).toBeNull(); // one digit changed: the checksum no longer matches
    expect(parseSentence(good.slice(0, -3))).toBeNull(); // no checksum
    expect(parseSentence(good.replace('*5B', '*5'))).toBeNull();
    expect(parseSentence(good.replace('*5B', '*ZZ'))).toBeNull();
    expect(parseSentence(good.slice(1))).toBeNull(); // no $
  });
  it('refuses bytes outside printable ASCII even when their XOR matches, and a bad address', () => {
    // \x01 twice XORs to nothing: the checksum still matches, the body is line noise.
    const body = 'GPGGA,092725.00,4717.11399,N,00833.91590,E,1,08,1.01,499.6,M,48.0,M,,\x01\x01';
    expect(parseSentence(`$${body}*${nmeaChecksum(body)}`)).toBeNull();
    expect(parseSentence(nmeaSentence('G1GGA,1'))).toBeNull();
    expect(parseSentence(nmeaSentence('PUBX,00'))).toBeNull();
  });
  it('reads every talker', () => {
    for (const t of ['GP', 'GN', 'GL', 'GA', 'GB', 'BD', 'GQ']) expect(parseSentence(nmeaSentence(`${t}GSA,A,3,,,,,,,,,,,,,1.0,1.0,1.0`))?.talker).toBe(t);
  });
});

describe('fields', () => {
  it('reads latitudes and longitudes as degrees and minutes with their hemisphere', () => {
    expect(angle('4717.11399', 'N', 2)).toBeCloseTo(47 + 17.11399 / 60, 12);
    expect(angle('00833.91590', 'W', 3)).toBeCloseTo(-(8 + 33.9159 / 60), 12);
    expect(angle('4717.11399', 'X', 2)).toBeNull();
    expect(angle('', 'N', 2)).toBeNull();
    expect(angle('9160.0', 'N', 2)).toBeNull();
    expect(angle('717.1', 'N', 2)).toBeNull(); // a digit missing: not read as 7°17'
  });
  it('reads times of day', () => {
    expect(timeOfDay('092725.00')).toBe(34045);
    expect(timeOfDay('235959.5')).toBe(86399.5);
    expect(timeOfDay('245959')).toBeNull();
    expect(timeOfDay('')).toBeNull();
  });
});

describe('GGA', () => {
  it('u-blox: position, GPS fix, satellites, HDOP, altitude', () => {
    const g = parseGga(fields('$GPGGA,092725.00,4717.11399,N,00833.91590,E,1,08,1.01,499.6,M,48.0,M,,*5B'))!;
    expect(g).toMatchObject({ quality: 'gps', satellites: 8, hdop: 1.01, altitude: 499.6, time: 34045 });
    expect(g.lat).toBeCloseTo(47.285233, 6);
    expect(g.lon).toBeCloseTo(8.565265, 6);
  });
  it('Trimble: eight decimals, DGPS, western longitude', () => {
    const g = parseGga(fields('$GPGGA,172814.0,3723.46587704,N,12202.26957864,W,2,6,1.2,18.893,M,-25.669,M,2.0,0031*4F'))!;
    expect(g).toMatchObject({ quality: 'dgps', satellites: 6, hdop: 1.2, altitude: 18.893 });
    expect(g.lon).toBeCloseTo(-(122 + 2.26957864 / 60), 10);
  });
  it('SiRF, and every quality indicator', () => {
    expect(parseGga(fields('$GPGGA,002153.000,3342.6618,N,11751.3858,W,1,10,1.2,27.0,M,-34.2,M,,0000*5E'))).toMatchObject({ quality: 'gps', satellites: 10 });
    const q = (i: string) => parseGga(fields(nmeaSentence(`GNGGA,120000.00,5212.0000,N,01101.2000,E,${i},12,0.6,80.0,M,45.0,M,1.0,0000`)))!.quality;
    expect(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', ''].map(q)).toEqual(['none', 'gps', 'dgps', 'pps', 'rtk-fixed', 'rtk-float', 'estimated', 'manual', 'simulation', 'none', 'none']);
  });
  it('a receiver without a fix sends empty fields', () => {
    expect(parseGga(fields(nmeaSentence('GPGGA,120001.00,,,,,0,00,99.99,,,,,,')))).toMatchObject({ lat: null, lon: null, quality: 'none', satellites: 0, altitude: null });
  });
});

describe('RMC', () => {
  it('SiRF: knots to m/s, course, date', () => {
    const r = parseRmc(fields('$GPRMC,161229.487,A,3723.2475,N,12158.3416,W,0.13,309.62,120598,,*10'))!;
    expect(r).toMatchObject({ valid: true, quality: 'gps', course: 309.62, day: Date.UTC(1998, 4, 12) / 86_400_000 });
    expect(r.speed).toBeCloseTo(0.13 * 1852 / 3600, 9);
  });
  it('u-blox NMEA 2.3 mode indicator, and an old receiver\'s magnetic variation', () => {
    expect(parseRmc(fields('$GPRMC,083559.00,A,4717.11437,N,00833.91522,E,0.004,77.52,091202,,,A*57'))).toMatchObject({ quality: 'gps', day: Date.UTC(2002, 11, 9) / 86_400_000 });
    expect(parseRmc(fields('$GPRMC,225446,A,4916.45,N,12311.12,W,000.5,054.7,191194,020.3,E*68'))).toMatchObject({ valid: true, course: 54.7, day: Date.UTC(1994, 10, 19) / 86_400_000 });
    const mode = (m: string) => parseRmc(fields(nmeaSentence(`GNRMC,120000.00,A,5212.0,N,01101.2,E,0.0,,291126,,,${m},V`)))!.quality;
    expect(['A', 'D', 'R', 'F', 'E', 'N'].map(mode)).toEqual(['gps', 'dgps', 'rtk-fixed', 'rtk-float', 'estimated', 'none']);
  });
  it('status V is no fix', () => {
    expect(parseRmc(fields(nmeaSentence('GPRMC,120001.00,V,,,,,,,291126,,,N')))).toMatchObject({ valid: false, quality: 'none', lat: null });
  });
});

describe('GSA', () => {
  it('SiRF and u-blox: fix type, satellites used, DOPs', () => {
    expect(parseGsa(fields('$GPGSA,A,3,07,02,26,27,09,04,15,,,,,,1.8,1.0,1.5*33'))).toEqual({ fixType: 3, used: [7, 2, 26, 27, 9, 4, 15], pdop: 1.8, hdop: 1, vdop: 1.5 });
    expect(parseGsa(fields('$GPGSA,A,3,23,29,07,08,09,18,26,28,,,,,1.94,1.18,1.54*0D'))).toMatchObject({ hdop: 1.18, used: [23, 29, 7, 8, 9, 18, 26, 28] });
    expect(parseGsa(fields(nmeaSentence('GNGSA,A,1,,,,,,,,,,,,,99.99,99.99,99.99,1')))).toMatchObject({ fixType: 1, used: [] });
  });
});

describe('GST', () => {
  it('Trimble: the one-sigma errors of latitude, longitude, altitude', () => {
    expect(parseGst(fields('$GPGST,172814.0,0.006,0.023,0.020,273.6,0.023,0.020,0.031*6A'))).toEqual({ time: 62894, latSigma: 0.023, lonSigma: 0.02, altSigma: 0.031 });
  });
  it('u-blox leaves the ellipse empty', () => {
    expect(parseGst(fields(nmeaSentence('GNGST,082356.00,1.8,,,,1.7,1.3,2.2')))).toEqual({ time: 30236, latSigma: 1.7, lonSigma: 1.3, altSigma: 2.2 });
  });
});

describe('GSV', () => {
  it('SiRF and u-blox: the group, and the satellites in view', () => {
    expect(parseGsv(fields('$GPGSV,2,1,07,07,79,048,42,02,51,062,43,26,36,256,42,27,27,138,42*71'))).toEqual({ total: 2, number: 1, inView: 7 });
    expect(parseGsv(fields('$GPGSV,3,1,10,23,38,230,44,29,71,156,47,07,29,116,41,08,09,081,36*7F'))).toEqual({ total: 3, number: 1, inView: 10 });
    expect(parseGsv(fields(nmeaSentence('GPGSV,1,2,03')))).toBeNull();
  });
});
