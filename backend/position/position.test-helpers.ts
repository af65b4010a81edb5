// What the position tests share: a FURROW_HOME whose mirror has an account and a farm (a walk needs both; no
// service is needed to record one), the host started on it, and its 'position' and 'trackPoint' events kept.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Mirror } from '../../db/mirror.ts';
import { launchHost, type Host, type LaunchOptions } from '../launch.ts';
import type { PositionState, TrackPoint } from '../../core/api-position.ts';

export const ACC = 'acc-00000000-0000-4000-8000-00000000a031';

/** A new FURROW_HOME with an account and one farm in its mirror; the farm's local id. */
export function homeWithFarm(): { home: string; farm: string } {
  const home = mkdtempSync(join(tmpdir(), 'furrow-position-'));
  const m = Mirror.open(join(home, 'mirror.db'));
  try {
    m.syncDb.prepare("INSERT INTO accounts (id, service_url, mode, label, created) VALUES (?, 'http://127.0.0.1:1', 'api_key', 'walks', '2026-11-29')").run(ACC);
    return { home, farm: m.write.createFarm(ACC, 'Sonnenfeld').local_id };
  } finally {
    m.close();
  }
}

export interface WatchedHost {
  h: Host;
  states: PositionState[];
  points: TrackPoint[];
  /** The last 'position' event's state. */
  last(): PositionState | undefined;
}

export async function watchedHost(home: string, env: NodeJS.ProcessEnv = {}, secrets: LaunchOptions['secrets'] = {}): Promise<WatchedHost> {
  const h = await launchHost({ home, env, secrets });
  const states: PositionState[] = [];
  const points: TrackPoint[] = [];
  h.client.on('position', (s) => states.push(s));
  h.client.on('trackPoint', (p) => points.push(p));
  return { h, states, points, last: () => states.at(-1) };
}
