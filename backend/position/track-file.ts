// The walk under way, kept in FURROW_HOME (track.jsonl) so that it survives the host's restart, a crash and a
// laptop's sleep (issue 31). Written as it grows: the walk's header once (a whole file renamed into place), then one
// line appended per point or change of state. Appending a line costs the same at the 10,000th point as at the first,
// where rewriting the whole walk at every point would not; and a line cut by a crash (power lost mid-write) is the
// last one, left out when the walk is read back — every record before it is whole.
import { appendFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { Track, type Fix } from '../../core/api-position.ts';

type Record =
  | { t: 'track'; track: Omit<Track, 'points'> }
  | { t: 'point'; p: Fix; dropped: number }
  | { t: 'state'; state: Track['state']; dropped: number };

export class TrackFile {
  readonly path: string;

  constructor(home: string) {
    this.path = join(home, 'track.jsonl');
  }

  /** The walk kept, or null. One that cannot be read (edited by hand, another version's) is set aside, not trusted. */
  read(): Track | null {
    if (!existsSync(this.path)) return null;
    const lines = readFileSync(this.path, 'utf8').split('\n');
    let track: Track | null = null;
    for (const line of lines) {
      if (!line) continue;
      let r: Record;
      try {
        r = JSON.parse(line) as Record;
      } catch {
        continue; // the last line, cut mid-write
      }
      if (r.t === 'track' && track === null) track = { ...r.track, points: [] };
      else if (track && r.t === 'point') { track.points.push(r.p); track.dropped = r.dropped; }
      else if (track && r.t === 'state') { track.state = r.state; track.dropped = r.dropped; }
    }
    if (!track || !Value.Check(Track, track)) {
      renameSync(this.path, `${this.path}.unreadable-${Date.now()}`);
      return null;
    }
    return track;
  }

  create(track: Track): void {
    const { points: _, ...head } = track;
    const tmp = `${this.path}.tmp`;
    writeFileSync(tmp, `${JSON.stringify({ t: 'track', track: head } satisfies Record)}\n`);
    renameSync(tmp, this.path);
  }

  point(p: Fix, dropped: number): void {
    appendFileSync(this.path, `${JSON.stringify({ t: 'point', p, dropped } satisfies Record)}\n`);
  }

  state(state: Track['state'], dropped: number): void {
    appendFileSync(this.path, `${JSON.stringify({ t: 'state', state, dropped } satisfies Record)}\n`);
  }

  remove(): void {
    rmSync(this.path, { force: true });
  }
}
