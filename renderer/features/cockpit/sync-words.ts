// What the sync cockpit says, worded from the backend's data (core/api.ts syncDetails): pure, tested beside it.
import type { SyncItem } from '../../../core/api.ts';

type OpCounts = { create: number; update: number; delete: number };
type Preview = { ops: { farm: OpCounts; parcel: OpCounts; crop: OpCounts }; hectaresAdded: number; hectaresCreated: number; hectaresDeleted: number; uncertain: number };

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
const ha = (x: number) => `${x.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })} ha`;

/** One line per kind of thing the next sync sends ("Parcels: 3 new, 2 changed, 1 deleted"); none when nothing waits. */
export function previewLines(p: Preview): string[] {
  const line = (label: string, o: OpCounts) => {
    const parts = [o.create ? `${o.create.toLocaleString('en-US')} new` : '', o.update ? `${o.update.toLocaleString('en-US')} changed` : '', o.delete ? `${o.delete.toLocaleString('en-US')} deleted` : ''].filter(Boolean);
    return parts.length ? `${label}: ${parts.join(', ')}` : null;
  };
  return [line('Farms', p.ops.farm), line('Parcels', p.ops.parcel), line('Crops', p.ops.crop)].filter((l): l is string => l !== null);
}

/** The change to the hectares the service bills, signed, with where it comes from. */
export function billableLine(p: Preview): string {
  const sign = p.hectaresAdded > 0.005 ? '+' : p.hectaresAdded < -0.005 ? '−' : '±';
  const parts = [p.hectaresCreated ? `${ha(p.hectaresCreated)} new` : '', p.hectaresDeleted ? `${ha(p.hectaresDeleted)} deleted` : ''].filter(Boolean);
  return `Billable area: ${sign}${ha(Math.abs(p.hectaresAdded))}${parts.length ? ` (${parts.join(', ')}${Math.abs(p.hectaresAdded - p.hectaresCreated + p.hectaresDeleted) > 0.005 ? ', shapes changed' : ''})` : ''}`;
}

const time = (iso: string | null) => (iso ? iso.slice(11, 19) : null);

/**
 * What is known of an uncertain item: when it went, what came back, and how the engine settles it (it looks for it
 * on the service by its client reference, and sends it again only once it is sure the service does not have it).
 */
export function evidence(i: SyncItem): string {
  const sent = time(i.sentAt);
  const what = i.kind === 'create' ? 'Sent' : i.kind === 'update' ? 'Change sent' : 'Delete sent';
  const parts = [`${what}${sent ? ` at ${sent}` : ''}${i.batch ? ` in batch ${i.batch.slice(0, 8)}` : ''}`];
  parts.push(i.reason ? `no clear answer: ${i.reason}` : i.state === 'in_flight' ? 'the run stopped before the answer' : 'no clear answer');
  if (i.kind === 'create') {
    parts.push(i.checks ? `looked for on the service ${plural(i.checks, 'time')}: not listed yet` : 'to be looked for on the service by its reference');
  } else parts.push('sent again at the next sync (a change or a delete is safe to repeat)');
  const next = time(i.nextAttemptAt);
  if (next) parts.push(`next look at ${next}`);
  return `${parts.join('; ')}.`;
}
