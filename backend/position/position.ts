// Where the user stands (issue 31), as the host knows it: the source of position chosen on this computer, kept
// connected (backend/position/connection.ts), its last fix and the satellites in view, told to every page as
// 'position' events — at most 20 a second, the latest state each time (a 100 Hz receiver is thinned, never queued) —
// and the walk under way fed from every fix (backend/position/track-recorder.ts).
import type { Fix, PositionSource, PositionState, PositionStatus, TrackPoint } from '../../core/api-position.ts';
import { GPSD_PORT, type BAUD_RATES } from '../../core/api-position.ts';
import type { Epoch } from '../../core/gnss/fix-assembler.ts';
import { ApiErrorCode } from '../../core/api-codes.ts';
import { RpcError } from '../../core/rpc.ts';
import { Connection, type ConnectionOptions } from './connection.ts';
import { gpsdDecoder, nmeaDecoder } from './decoders.ts';
import { tcpLink, udpLink } from './links.ts';
import { SavedSourceFile } from './saved-source.ts';
import { serialLink, SerialPorts } from './serial-ports.ts';
import { TrackFile } from './track-file.ts';
import { TrackRecorder } from './track-recorder.ts';
import { TargetLimit } from './target-limit.ts';
import { GPSD_WATCH } from '../../core/gnss/gpsd.ts';

/** At most 20 'position' events a second. */
export const EVENT_GAP_MS = 50;

export interface PositionEvents {
  position(state: PositionState): void;
  trackPoint(p: TrackPoint): void;
}

export interface PositionOptions extends ConnectionOptions {
  /** Where UDP sources listen (default every interface: backend/position/links.ts udpLink). */
  udpBind?: string;
  /** Where a network receiver's failures are told in full while a page is told them uniformly (the host's stderr). */
  log?: (line: string) => void;
}

/** What a try at a network receiver that sent no position says (backend/position/connection.ts ConnectionGuard). */
export function noPositionWords(source: PositionSource & { kind: 'tcp' | 'gpsd' }, within: string): string {
  const where = `${source.host}:${source.port}`;
  return source.kind === 'tcp'
    ? `No position came from ${where} within ${within}: nothing answered there, or what answered sent no NMEA. Is the receiver (or the app sharing its position) on and sharing NMEA, and are its address and port right?`
    : `No position came from gpsd at ${where} within ${within}: nothing answered there, or what answered is not gpsd with a receiver. Is gpsd running with the receiver plugged in, and are its address and port right?`;
}

export class Position {
  readonly ports: SerialPorts;
  readonly track: TrackRecorder;
  /** The receivers on the network pages may have the host try (backend/host.ts applies it to page sessions). */
  readonly pageTargets = new TargetLimit();
  private readonly saved: SavedSourceFile;
  private state: PositionState = { source: null, status: 'off', message: null, fix: null, inView: null };
  private connection: Connection | null = null;
  private lastEmit = -Infinity;
  private pending: ReturnType<typeof setTimeout> | null = null;
  private closed = false;

  constructor(home: string, private readonly events: PositionEvents, private readonly opts: PositionOptions = {}) {
    this.ports = new SerialPorts(home);
    this.saved = new SavedSourceFile(home);
    this.track = new TrackRecorder(new TrackFile(home), (p) => events.trackPoint(p));
  }

  /** Connects the source kept on this computer, if any (the host, at its start). */
  resume(): void {
    const kept = this.saved.read();
    if (!kept) return;
    if (kept.source.kind === 'serial' && kept.path) this.ports.register(kept.path);
    this.pageTargets.know(kept.source);
    this.use(kept.source, kept.path ?? null);
  }

  current(): PositionState {
    return this.state;
  }

  /** `fromPage`: a page's choice, within pageTargets' limit. */
  async connect(source: PositionSource, fromPage = false): Promise<PositionState> {
    if (fromPage) this.pageTargets.admit(source);
    let path: string | null = null;
    if (source.kind === 'serial') {
      path = await this.ports.pathOf(source.port);
      if (path === null) throw new RpcError(ApiErrorCode.notFound, 'That serial port is no longer on this computer (unplugged?): list the ports again');
    }
    this.saved.write(path ? { source, path } : { source });
    this.use(source, path);
    return this.state;
  }

  /** A serial device by its path (the command line's: a page never names a path). */
  connectPath(path: string, baud: (typeof BAUD_RATES)[number]): PositionState {
    const source: PositionSource = { kind: 'serial', port: this.ports.register(path), baud };
    this.saved.write({ source, path });
    this.use(source, path);
    return this.state;
  }

  disconnect(): PositionState {
    this.saved.forget();
    this.stopConnection();
    this.set({ source: null, status: 'off', message: null, fix: null, inView: null });
    return this.state;
  }

  /** The system's location, read by the page. */
  report(fix: Fix): void {
    if (this.state.source?.kind !== 'system') throw new RpcError(ApiErrorCode.conflict, "The source of position is not the system's location: choose it before reporting a fix");
    // The age of a fix is measured on the host's clock, whatever the page's says.
    this.epoch({ fix: { ...fix, received: Date.now() }, inView: null });
  }

  private use(source: PositionSource, path: string | null): void {
    this.stopConnection();
    this.set({ source, status: 'connecting', message: null, fix: null, inView: null });
    if (source.kind === 'system') {
      this.set({ ...this.state, status: 'connected' });
      return;
    }
    const { link, decoder } = source.kind === 'tcp' ? { link: tcpLink(source.host, source.port), decoder: nmeaDecoder }
      : source.kind === 'gpsd' ? { link: tcpLink(source.host, source.port || GPSD_PORT, GPSD_WATCH), decoder: gpsdDecoder }
        : source.kind === 'udp' ? { link: udpLink(source.port, this.opts.udpBind), decoder: nmeaDecoder }
          : { link: serialLink(path!, source.baud), decoder: nmeaDecoder };
    // A receiver reached by host and port is guarded until its first position (connection.ts); a serial port the
    // host listed and a UDP port it listens on are not (the listening is told as it is: the user must know a port taken).
    const net = source.kind === 'tcp' || source.kind === 'gpsd' ? source : null;
    const log = this.opts.log ?? (() => {});
    const guard = net ? { words: (within: string) => noPositionWords(net, within), log: (detail: string) => log(`Position: ${net.kind} ${net.host}:${net.port}: ${detail}\n`) } : undefined;
    const c: Connection = new Connection(link, () => decoder(), {
      status: (status: PositionStatus, message) => { if (this.connection === c) this.set({ ...this.state, status, message }); },
      epoch: (e) => { if (this.connection === c) this.epoch(e); },
    }, { ...this.opts, guard });
    this.connection = c;
    c.start();
  }

  private epoch(e: Epoch): void {
    // The receiver says it has no fix: told as a fix of quality 'none' where it last was (the map's "No fix" marker
    // there), or none at all before any position; a walk takes nothing from it.
    const last = this.state.fix;
    const fix: Fix | null = e.fix ?? (last && { ...last, quality: 'none', satellites: null, hdop: null, accuracy: null, heading: null, speed: null, received: Date.now() });
    this.set({ ...this.state, fix, inView: e.inView ?? this.state.inView });
    if (e.fix) this.track.fix(e.fix);
  }

  private stopConnection(): void {
    this.connection?.close();
    this.connection = null;
  }

  /** The state changed: told now, or EVENT_GAP_MS after the last event told (the latest state then). */
  private set(state: PositionState): void {
    this.state = state;
    if (this.pending || this.closed) return;
    this.emitWhenDue();
  }

  /**
   * Tells the state once EVENT_GAP_MS have passed since the last event, by the monotonic clock. A timer is due by the
   * event loop's clock, read when its turn began: set late in a busy turn it fires early by the real one (gaps of 47.7 ms
   * were seen on a loaded machine), so it looks again when it fires.
   */
  private emitWhenDue(): void {
    const wait = this.lastEmit + EVENT_GAP_MS - performance.now();
    if (wait <= 0) this.emitNow();
    else {
      this.pending = setTimeout(() => {
        this.pending = null;
        if (!this.closed) this.emitWhenDue();
      }, Math.ceil(wait));
    }
  }

  private emitNow(): void {
    this.pending = null;
    this.lastEmit = performance.now();
    this.events.position(this.state);
  }

  /** What the current connection's decoder counted (tests, the benchmark). */
  counts(): ReturnType<Connection['counts']> | null {
    return this.connection?.counts() ?? null;
  }

  close(): void {
    this.closed = true;
    if (this.pending) clearTimeout(this.pending);
    this.stopConnection();
    this.track.flush();
  }
}
