// The client reference: every parcel a Furrow mirror sends carries its local id under this metadata key, and every
// later PATCH keeps it (PATCH replaces the whole metadata object). It is how an uncertain create is found on the
// service. It shows in the embedded map's tooltips, hence a plain, self-explaining name. In core because the
// mirror (which must leave room for it), the sync engine and the embedded map all need the same name.
import { MAX_METADATA_KEYS, PARCEL_RULES_VERSION } from './limits.ts';

export const REF_KEY = 'furrow_ref';

/**
 * The validation stamp a mirror gives a parcel whose user fields just passed validateParcel (see the mirror's
 * migration 002): the rules version, or null when its metadata leaves no room for the client reference the sync
 * engine adds (then the engine's own check reports it).
 */
export const validationStamp = (metadata: Readonly<Record<string, unknown>>): number | null =>
  Object.keys(metadata).length < MAX_METADATA_KEYS || Object.prototype.hasOwnProperty.call(metadata, REF_KEY) ? PARCEL_RULES_VERSION : null;
