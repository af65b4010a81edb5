// One source of position kept connected (issue 31): opens its link, decodes what comes, and when the receiver drops
// — unplugged, out of Bluetooth range, the TCP connection closed, or silent longer than `silenceMs` — says so and
// opens it again after a wait that grows (1, 2, 4, 8, 15, 30 s, then every 30 s), the wait starting over once the
// receiver sent a fix again. Nothing else waits on it: the host answers every other call meanwhile.
//
// A receiver on the network that a page chose by host and port is `guarded` until it sends its first position: till
// then the page could be probing the user's network (is anything at 192.168.1.7:22?), so it learns nothing but that
// no position came — every try before the first position ends the same way, at the same time (`silenceMs` after it
// began), in the same words, whether the port refused, the name was unknown, or something answered that speaks no
// NMEA; the link's own reason goes to the host's log, where the user (not a page) can read it. Once a position came,
// the target is a receiver and its drops are said in full. backend/position/target-limit.ts bounds how many a page tries.
import type { PositionStatus } from '../../core/api-position.ts';
import type { Epoch } from '../../core/gnss/fix-assembler.ts';
import type { Decoder } from './decoders.ts';
import type { Link, OpenLink } from './links.ts';

export const BACKOFF_MS = [1000, 2000, 4000, 8000, 15_000, 30_000] as const;
/** A receiver sends at least once a second: ten seconds of nothing is a receiver gone (or a half-open connection). */
export const SILENCE_MS = 10_000;

const duration = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`);

export interface ConnectionEvents {
  status(status: PositionStatus, message: string | null): void;
  epoch(e: Epoch): void;
}

export interface ConnectionOptions {
  silenceMs?: number;
  backoffMs?: readonly number[];
}

/** A target not yet shown to be a receiver: what a try without a position says (given the wait, "10 s"), and the log of the link's own reasons. */
export interface ConnectionGuard {
  words(within: string): string;
  log(detail: string): void;
}

export class Connection {
  private link: Link | null = null;
  private retry: ReturnType<typeof setTimeout> | null = null;
  private silence: ReturnType<typeof setTimeout> | null = null;
  private attempt = 0;
  private closed = false;
  private decoder: Decoder;
  private readonly silenceMs: number;
  private readonly backoff: readonly number[];
  private readonly guard: ConnectionGuard | null;
  /** A position came on this connection: the target is a receiver (always so without a guard). */
  private proven: boolean;

  /** `open`: the link; `decoder`: a fresh decoder a connection (a new one starts without the old one's half line). */
  constructor(private readonly open: OpenLink, private readonly newDecoder: () => Decoder, private readonly ev: ConnectionEvents, opts: ConnectionOptions & { guard?: ConnectionGuard } = {}) {
    this.silenceMs = opts.silenceMs ?? SILENCE_MS;
    this.backoff = opts.backoffMs ?? BACKOFF_MS;
    this.guard = opts.guard ?? null;
    this.proven = this.guard === null;
    this.decoder = newDecoder();
  }

  start(): void {
    this.ev.status('connecting', null);
    this.connect();
  }

  /** What the current link's decoder counted. */
  counts(): ReturnType<Decoder['counts']> {
    return this.decoder.counts();
  }

  private connect(): void {
    if (this.closed) return;
    this.decoder = this.newDecoder();
    let live = true;
    this.link = this.open({
      opened: () => {
        // Unproven, an open port is not told (that is what a port scanner asks): the first position is.
        if (!live || this.closed || !this.proven) return;
        this.ev.status('connected', null);
        this.watch();
      },
      data: (text) => {
        if (!live || this.closed) return;
        const epochs = this.decoder.push(text);
        if (epochs.length) {
          // Only a fix (or a receiver's "no fix") shows the receiver is there: bytes of noise at a wrong baud rate do not.
          if (!this.proven) {
            this.proven = true;
            this.ev.status('connected', null);
          }
          this.attempt = 0;
          this.watch();
          for (const e of epochs) this.ev.epoch(e);
        }
      },
      closed: (reason, fatal) => {
        if (!live || this.closed) return;
        live = false;
        if (!this.proven) {
          // Told when the try's time is up (the silence watch armed below), as every unproven try's end is.
          this.guard?.log(reason);
          this.link?.close();
          this.link = null;
          return;
        }
        this.dropped(reason, fatal === true);
      },
    });
    // From the try's start: a receiver proven is watched again from its opening and each fix; an unproven try ends here.
    this.watch();
  }

  /** (Re)arms the silence watch: no fix within silenceMs and the link is dropped and opened again. */
  private watch(): void {
    if (this.silence) clearTimeout(this.silence);
    this.silence = setTimeout(() => {
      const link = this.link;
      this.link = null;
      link?.close();
      if (this.proven) this.dropped(`The receiver sent no position for ${duration(this.silenceMs)}`, false);
      else {
        if (link) this.guard?.log(`the connection was open, but no position came within ${duration(this.silenceMs)}`);
        this.dropped(this.guard!.words(duration(this.silenceMs)), false);
      }
    }, this.silenceMs);
    this.silence.unref?.();
  }

  private dropped(reason: string, fatal: boolean): void {
    if (this.closed) return;
    if (this.silence) clearTimeout(this.silence);
    this.silence = null;
    const link = this.link;
    this.link = null;
    link?.close();
    if (fatal) {
      this.ev.status('failed', reason);
      return;
    }
    const wait = this.backoff[Math.min(this.attempt, this.backoff.length - 1)]!;
    this.attempt++;
    // A reason that asks the user something ends in '?': the retry follows as a sentence of its own.
    this.ev.status('reconnecting', `${reason}${/[?.!]$/.test(reason) ? ' Trying' : ': trying'} again in ${duration(wait)}`);
    if (this.retry) clearTimeout(this.retry);
    this.retry = setTimeout(() => { this.retry = null; this.connect(); }, wait);
    this.retry.unref?.();
  }

  close(): void {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    if (this.silence) clearTimeout(this.silence);
    this.link?.close();
    this.link = null;
  }
}
