// What the table's bulk edit form asks the host for (BulkEditForm.tsx): its fields read as one BulkEdit.
import type { BulkEdit } from '../../../core/api.ts';

export type Kind = 'text' | 'number' | 'yes' | 'no' | 'remove' | 'crop';

/** The edit the form's fields ask for, or why they ask for none. */
export function bulkEditOf(kind: Kind, key: string, value: string, campaign: string): BulkEdit | string {
  if (kind === 'crop') {
    if (!value.trim()) return 'Name the crop to add.';
    return { crop: { name: value.trim(), ...(campaign.trim() ? { campaign: campaign.trim() } : {}) } };
  }
  const k = key.trim();
  if (!k) return 'Name the metadata key to set.';
  if (kind === 'number') {
    const n = Number(value.trim());
    return value.trim() !== '' && Number.isFinite(n) ? { metadata: { key: k, value: n } } : `"${value}" is not a number.`;
  }
  const v = kind === 'text' ? value : kind === 'yes' ? true : kind === 'no' ? false : null;
  return { metadata: { key: k, value: v } };
}

