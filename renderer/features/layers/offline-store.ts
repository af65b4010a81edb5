// The downloads of areas kept offline as this page sees them (features/layers/OfflineAreaForm.tsx): per layer, one
// running (its progress) or paused (where it stopped), as plain data. A download is this page's call to the host
// (core/api-offline.ts): aborting it pauses, so a page closed or reloaded pauses its download, and the host lists it
// as paused to the next page (refreshDownloads). The calls live here, not in the form, so that closing the layers
// panel does not stop a download.
import { create } from 'zustand';
import { RpcCode, RpcError } from '../../../core/rpc.ts';
import type { OfflineProgress, OfflineRequest, OfflineResult } from '../../../core/api-offline.ts';
import type { AppApi } from '../../backend.ts';
import { say } from '../../store.ts';
import { sizeWords } from './offline-words.ts';

export interface OfflineJob extends OfflineProgress {
  state: 'running' | 'paused';
  /** Started by this page (its progress comes with the call); else read from the host's list. */
  mine: boolean;
}

export const useOffline = create<{ jobs: Record<string, OfflineJob> }>(() => ({ jobs: {} }));

const setJob = (layer: string, job: OfflineJob | null) => useOffline.setState((s) => {
  const jobs = { ...s.jobs };
  if (job) jobs[layer] = job;
  else delete jobs[layer];
  return { jobs };
});

const calls = new Map<string, AbortController>();

/** The host's running and paused downloads (this page's own running ones keep their progress). */
export async function refreshDownloads(api: AppApi): Promise<void> {
  const list = await api.offlineDownloads({});
  const jobs: Record<string, OfflineJob> = {};
  for (const d of list) jobs[d.layer] = { state: d.state, done: d.done, total: d.total, bytes: d.bytes, failed: d.failed, mine: false };
  for (const [layer, job] of Object.entries(useOffline.getState().jobs)) if (job.mine && calls.has(layer)) jobs[layer] = job;
  useOffline.setState({ jobs });
}

type Start = (signal: AbortSignal, onProgress: (p: OfflineProgress) => void) => Promise<OfflineResult>;

/** Runs a download call for `layer` (`name` for what is said), keeping its state; `onKept` once the area is the layer's. */
async function run(api: AppApi, layer: string, name: string, start: Start, onKept: () => void): Promise<void> {
  if (calls.has(layer)) return;
  const c = new AbortController();
  calls.set(layer, c);
  let last: OfflineProgress = { done: 0, total: 0, bytes: 0, failed: 0, ...useOffline.getState().jobs[layer] };
  setJob(layer, { ...last, state: 'running', mine: true });
  try {
    const r = await start(c.signal, (p) => {
      last = p;
      setJob(layer, { ...p, state: 'running', mine: true });
    });
    if (r.offline) {
      setJob(layer, null);
      const empty = r.offline.empty ? ` (and ${r.offline.empty.toLocaleString('en-US')} empty: the server has no imagery there)` : '';
      say(`${name} is kept offline: ${r.offline.tiles.toLocaleString('en-US')} tiles${empty}, ${sizeWords(r.bytes)}.`);
      onKept();
    } else {
      setJob(layer, { ...r, state: 'paused', mine: false });
      say(`${name}: ${r.failed.toLocaleString('en-US')} tiles could not be downloaded. Resume tries them again, or keep the area without them.`, true);
      // The host's count of the tiles that failed, over every run (this call's result counts its own).
      await refreshDownloads(api).catch(() => undefined);
    }
  } catch (err) {
    const e = err instanceof RpcError ? err : new RpcError(RpcCode.internal, String(err));
    if (e.code === RpcCode.cancelled && e.message.startsWith('Paused')) setJob(layer, { ...last, state: 'paused', mine: false });
    else if (e.code === RpcCode.cancelled) setJob(layer, null);
    else {
      setJob(layer, null);
      say(`${name}: ${e.message}`, true);
      // A download stopped early is paused at the host: listed again with where it stopped.
      await refreshDownloads(api).catch(() => undefined);
    }
  } finally {
    calls.delete(layer);
  }
}

export function downloadArea(api: AppApi, req: OfflineRequest, name: string, onKept: () => void): Promise<void> {
  return run(api, req.layer, name, (signal, onProgress) => api.offlineDownload(req, { signal, onProgress }), onKept);
}

export function updateArea(api: AppApi, layer: string, name: string, onKept: () => void): Promise<void> {
  return run(api, layer, name, (signal, onProgress) => api.offlineUpdate({ layer }, { signal, onProgress }), onKept);
}

export function resumeArea(api: AppApi, layer: string, name: string, onKept: () => void): Promise<void> {
  return run(api, layer, name, (signal, onProgress) => api.offlineResume({ layer }, { signal, onProgress }), onKept);
}

/** Keeps a paused download's area without the tiles that kept failing (the host completes it; Update tries them again). */
export async function keepWithout(api: AppApi, layer: string, name: string, onKept: () => void): Promise<void> {
  const r = await api.offlineKeepPartial({ layer });
  setJob(layer, null);
  say(`${name} is kept offline without ${r.failed.toLocaleString('en-US')} tile${r.failed === 1 ? '' : 's'}: ${r.offline!.tiles.toLocaleString('en-US')} tiles, ${sizeWords(r.bytes)}.`);
  onKept();
}

/** Pauses this page's download of `layer` (what was downloaded stays; Resume goes on). */
export function pauseArea(layer: string): void {
  calls.get(layer)?.abort();
}

/** Whether this page runs a download of `layer` now. */
export const downloading = (layer: string): boolean => calls.has(layer);

/** Stops a download, running or paused, and removes what it wrote. */
export async function cancelArea(api: AppApi, layer: string): Promise<void> {
  await api.offlineCancel({ layer });
  setJob(layer, null);
}
