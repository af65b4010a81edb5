import { describe, expect, it } from 'vitest';
import { LineSplitter } from './line-splitter.ts';

describe('LineSplitter', () => {
  it('joins lines cut anywhere, ends them at CR LF, LF or CR, and leaves out empty ones', () => {
    const s = new LineSplitter();
    expect(s.push('$GPGGA,1*00\r')).toEqual(['$GPGGA,1*00']);
    expect(s.push('\n$GPRMC,')).toEqual([]);
    expect(s.push('2*00\n\n\r\n$GPGSA,3*00\r\n')).toEqual(['$GPRMC,2*00', '$GPGSA,3*00']);
  });
  it('drops what comes before a $ on its line: a port opened mid-sentence, a receiver that stopped mid-sentence', () => {
    const s = new LineSplitter();
    expect(s.push('1.01,499.6,M,48.0,M,,*5B\r\n')).toEqual(['1.01,499.6,M,48.0,M,,*5B']);
    expect(s.push('$GPGGA,0927')).toEqual([]);
    expect(s.push('$GPRMC,2*00\r\n')).toEqual(['$GPRMC,2*00']);
    expect(s.push('\x00\xff\x13garbage$GPGSA,3*00\n')).toEqual(['$GPGSA,3*00']);
  });
  it('drops a line longer than its cap as it streams by, holding no more than the cap', () => {
    const s = new LineSplitter(100);
    const chunk = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 160; i++) { // 10 MB without a line end
      expect(s.push(chunk)).toEqual([]);
      expect(s.buffered).toBeLessThanOrEqual(100);
    }
    expect(s.push('tail\r\n$GPGGA,1*00\r\n')).toEqual(['$GPGGA,1*00']);
    expect(s.overlong).toBe(1);
    expect(s.push(`${'y'.repeat(101)}\n${'z'.repeat(100)}\n`)).toEqual(['z'.repeat(100)]);
    expect(s.overlong).toBe(2);
  });
  it('a sentence after a long run of noise on the same line is still read', () => {
    const s = new LineSplitter(100);
    expect(s.push(`${'n'.repeat(5000)}$GPGGA,1*00\n`)).toEqual(['$GPGGA,1*00']);
  });
  it("for gpsd's JSON, a $ is text", () => {
    const s = new LineSplitter(1000, false);
    expect(s.push('{"class":"X","v":"$1"}\n')).toEqual(['{"class":"X","v":"$1"}']);
  });
});
