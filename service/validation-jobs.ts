// The units of work of the validation pool, and how one is done: the same code runs on a worker thread and, when
// there is none (VALIDATION_WORKERS=0, or a worker failed), on the request's thread.
import { MAX_PARCELS_PER_REQUEST, validateParcel, validateParcelPatch, type ParcelPatch, type ParcelProblem } from '../core/parcels/validate.ts';
import { geometryColumns, parcelColumnsOf, type GeometryColumns, type ParcelColumns } from '../core/parcels/columns.ts';
import { decodeRange, splitStep, type SplitProgress } from './json-split.ts';

/** Validated parcels as their columns, serialized by the thread that validated them. */
export interface Validated { parcels: ParcelColumns[]; problems: ParcelProblem[] }

/** A validated PATCH body, serialized likewise: the columns it changes. */
export interface PreparedPatch extends Partial<Pick<ParcelColumns, 'name' | 'metadata'>> {
  geom?: GeometryColumns;
}

export type Job =
  /** Parcel inputs already parsed, numbered from `first` in the request. */
  | { kind: 'objects'; inputs: unknown[]; first: number; maxHectares: number }
  /** Parcels still as JSON text: byte ranges [start, end, start, end, …] of `bytes`; without a limit, only parsed. */
  | { kind: 'slices'; bytes: Uint8Array; ranges: number[]; first: number; maxHectares: number | null }
  /**
   * A step of splitting a large body into its envelope (parsed in the last step) and the byte ranges of its
   * `key` array's items, from `progress` (the start when absent) for about SPLIT_STEP_BYTES.
   */
  | { kind: 'split'; bytes: Uint8Array; key: string; progress?: SplitProgress }
  /**
   * A bulk create's body of ordinary size as JSON text, parsed and its `key` array (1 to 50 parcels) validated
   * against `maxHectares` in one job: the request thread neither parses it nor copies the parsed parcels here.
   */
  | { kind: 'bulk'; bytes: Uint8Array; key: string; maxHectares: number }
  /** A large body parsed whole (one that cannot be split); `keep` false: only whether it is JSON. */
  | { kind: 'whole'; bytes: Uint8Array; keep: boolean }
  /** A PATCH body, parsed already or as JSON text, validated against a parcel limit. */
  | { kind: 'patch'; body: unknown; bytes: Uint8Array | null; id: number; maxHectares: number };

export type JobResult =
  | { kind: 'validated'; result: Validated }
  | { kind: 'malformed' }
  | { kind: 'split'; envelope: Record<string, unknown>; items: number[] }
  | { kind: 'split-more'; progress: SplitProgress; items: number[] }
  | { kind: 'whole'; value: unknown }
  /**
   * The body parsed; when its `key` was an array of 1 to 50 items, that member set to null (its place kept) and
   * `count` items validated into `result`; otherwise the body whole and `result` null.
   */
  | { kind: 'bulk'; body: unknown; count: number; result: Validated | null }
  | { kind: 'patch'; patch: PreparedPatch | null; problems: ParcelProblem[] };

/** Bytes a split job scans before handing back: about as long as parsing and validating one heavy parcel. */
export const SPLIT_STEP_BYTES = 1024 * 1024;

export function prepareParcels(inputs: readonly unknown[], maxHectares: number, first = 0): Validated {
  const parcels: ParcelColumns[] = [];
  const problems: ParcelProblem[] = [];
  for (let i = 0; i < inputs.length; i++) {
    const r = validateParcel(inputs[i], first + i, { maxHectares });
    for (const p of r.problems) problems.push(p);
    // Once a parcel is invalid nothing is created: the others need no serializing.
    if (r.parcel !== null && problems.length === 0) parcels.push(parcelColumnsOf(r.parcel));
  }
  return { parcels: problems.length ? [] : parcels, problems };
}

export function preparePatch(patch: ParcelPatch): PreparedPatch {
  const out: PreparedPatch = {};
  if (patch.name !== undefined) out.name = patch.name;
  if (patch.metadata !== undefined) out.metadata = JSON.stringify(patch.metadata);
  if (patch.geom) out.geom = geometryColumns(patch.geom);
  return out;
}

/** JSON.parse as fastify's default parser does it for this service (prototype keys are ordinary keys). */
function parse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

export function runJob(job: Job): JobResult {
  switch (job.kind) {
    case 'objects':
      return { kind: 'validated', result: prepareParcels(job.inputs, job.maxHectares, job.first) };
    case 'slices': {
      const inputs: unknown[] = [];
      for (let k = 0; k < job.ranges.length; k += 2) {
        const p = parse(decodeRange(job.bytes, job.ranges[k]!, job.ranges[k + 1]!));
        if (!p.ok) return { kind: 'malformed' };
        inputs.push(p.value);
      }
      if (job.maxHectares === null) return { kind: 'validated', result: { parcels: [], problems: [] } };
      return { kind: 'validated', result: prepareParcels(inputs, job.maxHectares, job.first) };
    }
    case 'split': {
      const step = splitStep(job.bytes, job.key, job.progress, SPLIT_STEP_BYTES);
      if (step.kind === 'refused') return runJob({ kind: 'whole', bytes: job.bytes, keep: true });
      if (step.kind === 'more') return { kind: 'split-more', progress: step.progress, items: step.items.flat() };
      const envelope = parse(step.split.envelope);
      if (!envelope.ok) return { kind: 'malformed' };
      return { kind: 'split', envelope: envelope.value as Record<string, unknown>, items: step.split.items.flat() };
    }
    case 'bulk': {
      const whole = runJob({ kind: 'whole', bytes: job.bytes, keep: true });
      if (whole.kind !== 'whole') return whole;
      const body = whole.value;
      const items = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>)[job.key] : undefined;
      if (!Array.isArray(items) || items.length < 1 || items.length > MAX_PARCELS_PER_REQUEST) return { kind: 'bulk', body, count: 0, result: null };
      (body as Record<string, unknown>)[job.key] = null;
      return { kind: 'bulk', body, count: items.length, result: prepareParcels(items, job.maxHectares) };
    }
    case 'whole': {
      let text = decodeRange(job.bytes, 0, job.bytes.length);
      // As fastify's parser (secure-json-parse): a byte-order mark at the very start is dropped.
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      const p = parse(text);
      if (!p.ok) return { kind: 'malformed' };
      return { kind: 'whole', value: job.keep ? p.value : null };
    }
    case 'patch': {
      let body = job.body;
      if (job.bytes !== null) {
        const whole = runJob({ kind: 'whole', bytes: job.bytes, keep: true });
        if (whole.kind !== 'whole') return whole;
        body = whole.value;
      }
      const r = validateParcelPatch(body, job.id, { maxHectares: job.maxHectares });
      return { kind: 'patch', patch: r.patch ? preparePatch(r.patch) : null, problems: r.problems };
    }
  }
}

/** Positions of a parcel input as sent (what its validation costs), without walking them. */
export function positionsOf(input: unknown): number {
  const coords = (input as { geom?: { geometry?: { coordinates?: unknown } } } | null)?.geom?.geometry?.coordinates;
  if (!Array.isArray(coords)) return 1;
  let n = 0;
  for (const ring of coords) n += Array.isArray(ring) ? ring.length : 1;
  return Math.max(1, n);
}
