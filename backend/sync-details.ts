// The sync cockpit's view of one account (core/api.ts syncDetails): the next sync's preview and the work that needs
// the user, read from the mirror (db/sync-preview.ts), with each open conflict's subject named.
import type { Mirror } from '../db/mirror.ts';
import type { SyncDetails } from '../core/api.ts';
import { cropDifferences, parcelEditDifferences } from './parcel-conflict.ts';

export function syncDetails(m: Mirror, accountId: string): SyncDetails {
  const nameOf = (entity: string, localId: string): string => {
    const r = entity === 'farm' ? m.read.farm(localId) : entity === 'parcel' ? m.read.parcel(localId) : m.read.crop(localId);
    return (r && 'name' in r && r.name) || localId;
  };
  const families = new Map(m.read.cropFamilies(accountId).map((f) => [f.id, f.name]));
  const conflicts = m.read.conflicts().filter((c) => c.account_id === accountId).map((c) => {
    const fields = JSON.parse(c.fields) as string[];
    // Both sides of an edit, field by field, for the cockpit to settle where it stands (a crop has no panel of its own).
    const differences = c.kind !== 'edit' ? []
      : c.entity === 'crop' ? cropDifferences(c.mine, c.theirs, fields, (id) => families.get(id) ?? null)
        : c.entity === 'parcel' ? parcelEditDifferences(c.mine, c.theirs, fields) : [];
    return { id: c.id, entity: c.entity, localId: c.local_id, name: nameOf(c.entity, c.local_id), kind: c.kind, reason: fields.join(', '), differences };
  });
  return { preview: m.read.syncPreview(accountId), items: m.read.syncItems(accountId), conflicts };
}
