// The walk being recorded (issue 31): fixes taken by the walk's rule (core/gnss/track-rule.ts), those worse than its
// threshold dropped and counted, each point kept in FURROW_HOME as it is taken (backend/position/track-file.ts) and
// told to every page ('trackPoint'). One walk at a time on a computer: the page closes it into a parcel, then
// discards it.
import { randomUUID } from 'node:crypto';
import type { Fix, Track, TrackPoint, TrackSettings } from '../../core/api-position.ts';
import { trackDecision } from '../../core/gnss/track-rule.ts';
import { ApiErrorCode } from '../../core/api-codes.ts';
import { RpcError } from '../../core/rpc.ts';
import type { TrackFile } from './track-file.ts';

export class TrackRecorder {
  private track: Track | null;
  /** Drops not yet written: kept with the next point or change of state (a crash loses at most those). */
  private unwritten = false;

  constructor(private readonly file: TrackFile, private readonly emit: (p: TrackPoint) => void) {
    this.track = file.read();
  }

  current(): Track | null {
    return this.track;
  }

  start(account: string, farm: string, settings: TrackSettings): Track {
    if (this.track) throw new RpcError(ApiErrorCode.conflict, 'A walk is already kept on this computer: save it as a parcel or discard it before starting another');
    const track: Track = { id: randomUUID(), account, farm, state: 'recording', settings, points: [], dropped: 0, started: new Date().toISOString() };
    this.file.create(track);
    this.track = track;
    return track;
  }

  private kept(): Track {
    if (!this.track) throw new RpcError(ApiErrorCode.conflict, 'No walk is kept on this computer');
    return this.track;
  }

  pause(): Track {
    return this.setState('paused');
  }

  resume(): Track {
    return this.setState('recording');
  }

  private setState(state: Track['state']): Track {
    const t = this.kept();
    if (t.state !== state) {
      t.state = state;
      this.file.state(state, t.dropped);
      this.unwritten = false;
    }
    return t;
  }

  discard(): void {
    this.file.remove();
    this.track = null;
  }

  /** A fix from the source: taken into the walk under way, skipped or dropped by its rule. */
  fix(f: Fix): void {
    const t = this.track;
    if (!t || t.state !== 'recording') return;
    const d = trackDecision(t.points.at(-1) ?? null, f, t.settings);
    if (d === 'drop') { t.dropped++; this.unwritten = true; return; }
    if (d === 'skip') return;
    t.points.push(f);
    this.file.point(f, t.dropped);
    this.unwritten = false;
    this.emit({ track: t.id, index: t.points.length - 1, point: f, dropped: t.dropped });
  }

  /** Writes the drops counted since the last record (the host closing). */
  flush(): void {
    if (this.track && this.unwritten) this.file.state(this.track.state, this.track.dropped);
    this.unwritten = false;
  }
}
