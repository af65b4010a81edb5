// The lines of a byte stream from a receiver (a serial port, a TCP connection, UDP datagrams): what arrives is cut
// anywhere, may begin mid-sentence (the port opened while the receiver was talking), may be line noise (a wrong baud
// rate), and a receiver that stops mid-sentence and starts again glues half a sentence to the next. A line is kept
// only up to `maxLine` characters: a longer one is no NMEA and is dropped as it streams by, never buffered, so a
// stream of 10 MB without a line end costs `maxLine` characters of memory, not 10 MB.
export const DEFAULT_MAX_LINE = 1024;
const SENTENCE_DELIMITERS = /[\r\n$!]/g;
const LINE_ENDS = /[\r\n]/g;

export class LineSplitter {
  private line = '';
  /** Inside a line already too long: everything up to its end is dropped. */
  private skipping = false;
  /** Lines dropped for their length since the start. */
  overlong = 0;

  /** `sentences`: a '$' or '!' begins a new line (NMEA); off for gpsd's JSON, where they are text. */
  constructor(private readonly maxLine = DEFAULT_MAX_LINE, private readonly sentences = true) {}

  /**
   * The whole lines `chunk` completes (without their CR LF; empty ones left out). Text is the stream decoded one
   * byte a character (latin1): NMEA is ASCII, and a byte of noise stays one character that fails the checksum.
   * A '$' or '!' starts a new line even without a line end before it: the unfinished one is dropped.
   */
  push(chunk: string): string[] {
    const out: string[] = [];
    // The delimiters found by the regular expression engine, not a loop over every character in JavaScript: a 10 MB
    // line of noise is scanned natively, and the host's thread stays free to answer.
    const delimiters = this.sentences ? SENTENCE_DELIMITERS : LINE_ENDS;
    delimiters.lastIndex = 0;
    let start = 0;
    let m: RegExpExecArray | null;
    while ((m = delimiters.exec(chunk)) !== null) {
      const i = m.index;
      const c = chunk.charCodeAt(i);
      if (c === 10 || c === 13) {
        this.take(chunk, start, i);
        this.finish(out);
        start = i + 1;
      } else {
        // A sentence starts: what came before it on this line is a fragment (or noise) and is dropped.
        this.line = '';
        this.skipping = false;
        start = i;
      }
    }
    this.take(chunk, start, chunk.length);
    return out;
  }

  private take(chunk: string, from: number, to: number): void {
    if (this.skipping || from >= to) return;
    if (this.line.length + (to - from) > this.maxLine) {
      this.line = '';
      this.skipping = true;
      this.overlong++;
      return;
    }
    this.line += chunk.slice(from, to);
  }

  private finish(out: string[]): void {
    if (!this.skipping && this.line.length > 0) out.push(this.line);
    this.line = '';
    this.skipping = false;
  }

  /** Characters held for the line not yet ended: never more than maxLine. */
  get buffered(): number {
    return this.line.length;
  }
}
