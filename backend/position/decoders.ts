// A link's bytes made epochs (core/gnss): NMEA through the line splitter, the sentence parser and the fix assembler;
// gpsd's JSON through its reports. Counted, for the state's words and the tests: sentences refused (a bad checksum,
// noise), lines dropped for their length.
import { FixAssembler, type Epoch } from '../../core/gnss/fix-assembler.ts';
import { GpsdReports } from '../../core/gnss/gpsd.ts';
import { LineSplitter } from '../../core/gnss/line-splitter.ts';
import { parseSentence } from '../../core/gnss/nmea.ts';

export interface Decoder {
  push(text: string): Epoch[];
  /** Lines read, refused, and dropped for their length so far. */
  counts(): { lines: number; refused: number; overlong: number };
}

/** gpsd's reports run longer than NMEA (a SKY of 40 satellites is some 4 KB); gpsd caps its own at 10 KB. */
const GPSD_MAX_LINE = 16 * 1024;

export function nmeaDecoder(now: () => number = Date.now): Decoder {
  const lines = new LineSplitter();
  const fixes = new FixAssembler(now);
  let read = 0, refused = 0;
  return {
    push(text) {
      const out: Epoch[] = [];
      for (const line of lines.push(text)) {
        read++;
        const s = parseSentence(line);
        if (s) out.push(...fixes.push(s));
        else refused++;
      }
      return out;
    },
    counts: () => ({ lines: read, refused, overlong: lines.overlong }),
  };
}

export function gpsdDecoder(now: () => number = Date.now): Decoder {
  const lines = new LineSplitter(GPSD_MAX_LINE, false);
  const reports = new GpsdReports(now);
  let read = 0, refused = 0;
  return {
    push(text) {
      const out: Epoch[] = [];
      for (const line of lines.push(text)) {
        read++;
        if (line[0] !== '{') { refused++; continue; }
        out.push(...reports.push(line));
      }
      return out;
    },
    counts: () => ({ lines: read, refused, overlong: lines.overlong }),
  };
}
