// What the position's buttons do (issue 31): backend calls whose outcome lands in the stores as plain data. A vertex
// at the position joins the polygon being drawn (as a typed vertex: its [lon, lat] exact) or the shape being
// modified (on the edge it lengthens least), its survey record kept for the parcel's metadata; a walk is started,
// paused, resumed on the host, and closed into the draft the ordinary new-parcel form saves.
import type { AppApi } from '../../backend.ts';
import type { Fix } from '../../../core/api.ts';
import { averageDone, type AverageGoal } from '../../../core/gnss/average.ts';
import { closeWalk } from '../../../core/gnss/walk.ts';
import { decodeSurvey, isSurveyKey, withSurvey, type SurveyVertex } from '../../../core/gnss/survey.ts';
import { commandDraft, say, set, useApp, type Position2 } from '../../store.ts';
import { hectares } from '../../states.ts';
import { typeRings, useEdit } from '../edit/edit-store.ts';
import { accuracyProblem, insertVertex, takeVertex, type TakenVertex } from './at-position.ts';
import { fixKind } from './position-words.ts';
import { setPosition, usePosition } from './position-store.ts';

const why = (err: unknown) => (err instanceof Error ? err.message : String(err));

export const averageGoal = (): AverageGoal => {
  const { averageBy, averageN } = usePosition.getState().prefs;
  return averageBy === 'seconds' ? { seconds: averageN } : { fixes: averageN };
};

/** Whether a vertex can be taken now: drawing (not finished) or modifying, with a live fix. */
export function canTakeVertex(): string | null {
  const { mode, drawn } = useApp.getState();
  if (!((mode === 'draw' && !drawn) || (mode === 'modify' && useEdit.getState().editing))) return 'Draw a polygon (D) or modify a parcel (M) first: the vertex joins its shape.';
  const fix = usePosition.getState().state?.fix ?? null;
  const kind = fixKind(fix, Date.now());
  if (kind !== 'live') return kind === 'stale' ? 'The position is stale: wait for the receiver.' : 'No fix: wait for the receiver (Position, L, connects one).';
  return null;
}

/** Begins taking a vertex: at once from the live fix, or averaging the fixes to come. */
export function startVertex(): void {
  const refused = canTakeVertex();
  if (refused) { say(refused, true); return; }
  const fix = usePosition.getState().state!.fix!;
  const goal = averageGoal();
  if (averageDone(goal, 1, Date.now(), Date.now())) { offerVertex(takeVertex([fix])!); return; }
  setPosition({ averaging: { fixes: [fix], started: Date.now() }, pending: null });
}

/** Watches an averaging under way; called on every change of the store and each second. */
export function checkAveraging(): void {
  const a = usePosition.getState().averaging;
  if (!a) return;
  const first = a.fixes[0]?.received ?? a.started;
  if (!averageDone(averageGoal(), a.fixes.length, first, Date.now())) return;
  setPosition({ averaging: null });
  offerVertex(takeVertex(a.fixes)!);
}

export const cancelAveraging = () => setPosition({ averaging: null });

/** The vertex taken: added, or held for the user's word when its accuracy is worse than the threshold. */
function offerVertex(v: TakenVertex): void {
  const problem = accuracyProblem(v.survey.accuracy, usePosition.getState().prefs.threshold);
  if (problem) { setPosition({ pending: { vertex: v, problem } }); return; }
  addVertex(v);
}

export function addVertex(v: TakenVertex): void {
  setPosition((s) => ({ pending: null, survey: [...s.survey, v.survey] }));
  const { mode } = useApp.getState();
  const spread = v.count > 1 ? `, averaged over ${v.count} fixes (spread ${v.spread.toFixed(2)} m)` : '';
  if (mode === 'draw') commandDraft({ op: 'add', pos: v.pos });
  else if (mode === 'modify') {
    const rings = useEdit.getState().rings;
    typeRings([insertVertex(rings[0] ?? [], v.pos), ...rings.slice(1)]);
  } else return;
  say(`Added a vertex at your position${spread}.`);
}

export const refuseVertex = () => setPosition({ pending: null });

/** The survey records for a drawn ring, merged into `metadata` (undefined: none to add, the metadata left alone). */
export function draftMetadata(ring: readonly Position2[], metadata: Record<string, string | number | boolean | null> = {}): Record<string, string | number | boolean | null> | undefined {
  const { survey } = usePosition.getState();
  if (!survey.length) return undefined;
  const md = withSurvey(metadata, survey, [ring]);
  if (typeof md.error === 'string' && Object.keys(md).length === 1) throw new Error(md.error as string);
  return md;
}

/**
 * The metadata a modified shape saves with: its survey record for the vertices still there (old and new), or
 * undefined when neither the parcel nor this edit has any (the metadata then left alone).
 */
export function modifiedMetadata(metadata: Record<string, string | number | boolean | null>, rings: readonly (readonly Position2[])[]): Record<string, string | number | boolean | null> | undefined {
  const old = decodeSurvey(metadata);
  const { survey } = usePosition.getState();
  if (!old.length && !survey.length && !Object.keys(metadata).some(isSurveyKey)) return undefined;
  const md = withSurvey(metadata, [...old, ...survey], rings);
  if (typeof md.error === 'string' && Object.keys(md).length === 1) throw new Error(md.error as string);
  return md;
}

/** A new drawing or edit starts with no survey records. */
export const forgetSurvey = () => setPosition({ survey: [], fromWalk: null, averaging: null, pending: null });
// Any change of mode (drawing begun, saved or discarded; modify begun or left) ends the last shape's records.
useApp.subscribe((s, prev) => { if (s.mode !== prev.mode) forgetSurvey(); });

export async function startWalk(api: AppApi, farm: string): Promise<void> {
  const account = useApp.getState().account?.id;
  if (!account) return;
  const { minDistance, minInterval, threshold } = usePosition.getState().prefs;
  try {
    const track = await api.trackStart({ account, farm, settings: { minDistance, minInterval, maxAccuracy: threshold } });
    setPosition({ track });
    say('Walking the boundary: the track is recorded as you walk. Pause, resume, or close it into a parcel.');
  } catch (err) { say(`The walk did not start: ${why(err)}`, true); }
}

export async function pauseWalk(api: AppApi, pause: boolean): Promise<void> {
  try { setPosition({ track: await (pause ? api.trackPause({}) : api.trackResume({})) }); } catch (err) { say(`${pause ? 'Pause' : 'Resume'} failed: ${why(err)}`, true); }
}

export async function discardWalk(api: AppApi): Promise<void> {
  try { await api.trackDiscard({}); setPosition({ track: null, fromWalk: null }); say('The walk was discarded.'); } catch (err) { say(`Not discarded: ${why(err)}`, true); }
}

/** The walk's points as the map's survey records. */
const surveyOf = (f: Fix): SurveyVertex => ({ lon: f.lon, lat: f.lat, quality: f.quality, satellites: f.satellites, hdop: f.hdop, accuracy: f.accuracy, time: f.time });

/** Closes the walk into a finished draft: the new-parcel form (its farm the walk's) saves it, then the walk goes. */
export async function closeWalkIntoDraft(api: AppApi): Promise<void> {
  const { track, prefs } = usePosition.getState();
  if (!track) return;
  // Paused first: points arriving while the form is filled in would not be in the parcel.
  if (track.state === 'recording') await pauseWalk(api, true);
  const w = closeWalk(track.points, track.settings.maxAccuracy, prefs.tolerance / 100);
  if (w.vertices.length < 3) { say(`The walk has ${w.vertices.length} usable ${w.vertices.length === 1 ? 'point' : 'points'}: walk on, at least three corners apart.`, true); return; }
  set({ mode: 'draw', draft: w.vertices.map((p) => [p.lon, p.lat]), drawn: true, point: null, selectedId: null, farmId: track.farm });
  setPosition({ survey: w.vertices.map(surveyOf), fromWalk: track.id });
  const change = w.walkedHectares ? (Math.abs(w.hectares - w.walkedHectares) / w.walkedHectares) * 100 : 0;
  say(`The walk closed into ${w.vertices.length} vertices (${hectares(w.hectares)}; the ${track.points.length} points walked: ${hectares(w.walkedHectares)}, ${change.toFixed(2)} % apart${w.dropped ? `; ${w.dropped} left out for their accuracy` : ''}). Name it and save it.`);
}

/** After a drawn parcel is saved: a walk it came from is discarded on the host. */
export async function afterDraftSaved(api: AppApi): Promise<void> {
  const { fromWalk } = usePosition.getState();
  forgetSurvey();
  if (!fromWalk) return;
  try { await api.trackDiscard({}); setPosition({ track: null }); } catch { /* kept: the panel still offers Discard */ }
}
