// One source of position kept connected (issue 31): opens its link, decodes what comes, and when the receiver drops
// — unplugged, out of Bluetooth range, the TCP connection closed, or silent longer than `silenceMs` — says so and
// opens it again after a wait that grows (1, 2, 4, 8, 15, 30 s, then every 30 s), the wait starting over once the
// receiver sent a fix again. Nothing else waits on it: the host answers every other call meanwhile.
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

export class Connection {
  private link: Link | null = null;
  private retry: ReturnType<typeof setTimeout> | null = null;
  private silence: ReturnType<typeof setTimeout> | null = null;
  private attempt = 0;
  private closed = false;
  private decoder: Decoder;
  private readonly silenceMs: number;
  private readonly backoff: readonly number[];

  /** `open`: the link; `decoder`: a fresh decoder a connection (a new one starts without the old one's half line). */
  constructor(private readonly open: OpenLink, private readonly newDecoder: () => Decoder, private readonly ev: ConnectionEvents, opts: ConnectionOptions = {}) {
    this.silenceMs = opts.silenceMs ?? SILENCE_MS;
    this.backoff = opts.backoffMs ?? BACKOFF_MS;
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
        if (!live || this.closed) return;
        this.ev.status('connected', null);
        this.watch();
      },
      data: (text) => {
        if (!live || this.closed) return;
        const epochs = this.decoder.push(text);
        if (epochs.length) {
          // Only a fix (or a receiver's "no fix") shows the receiver is there: bytes of noise at a wrong baud rate do not.
          this.attempt = 0;
          this.watch();
          for (const e of epochs) this.ev.epoch(e);
        }
      },
      closed: (reason, fatal) => {
        if (!live || this.closed) return;
        live = false;
        this.dropped(reason, fatal === true);
      },
    });
    this.watch();
  }

  /** (Re)arms the silence watch: no fix within silenceMs and the link is dropped and opened again. */
  private watch(): void {
    if (this.silence) clearTimeout(this.silence);
    this.silence = setTimeout(() => {
      const link = this.link;
      this.link = null;
      link?.close();
      this.dropped(`The receiver sent no position for ${duration(this.silenceMs)}`, false);
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
