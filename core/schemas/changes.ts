import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from './common.ts';
import { Farm } from './farms.ts';
import { ParcelFeature } from './parcels.ts';
import { Crop } from './crops.ts';
import { PlantFeature } from './plants.ts';

// GET /api/changes/: an extension of the spec (docs/api.md, "Changes").

export const CHANGES_DEFAULT_LIMIT = 1000;
export const CHANGES_MAX_LIMIT = 10_000;
/** A cursor's longest form: a client never keeps a longer one (it could not send it back in a URL). */
export const CURSOR_MAX_LENGTH = 64;

export const ChangesQuery = Type.Object({
  since: Type.Optional(Type.String({ maxLength: CURSOR_MAX_LENGTH, description: 'A `cursor` of an earlier answer, unchanged. Absent or empty: the current cursor and no change.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: CHANGES_MAX_LIMIT, default: CHANGES_DEFAULT_LIMIT })),
}, { additionalProperties: false });
export type ChangesQuery = Static<typeof ChangesQuery>;

const live = <E extends string>(entity: E, data: Parameters<typeof Type.Object>[0][string]) => Type.Object({
  entity: Type.Literal(entity),
  id: Type.Integer(),
  deleted: Type.Literal(false),
  data,
}, { description: `A ${entity} created or changed: data is what GET of that ${entity} answers` });

export const ChangeTombstone = Type.Object({
  entity: Type.Union([Type.Literal('farm'), Type.Literal('parcel'), Type.Literal('crop'), Type.Literal('plant')]),
  id: Type.Integer(),
  deleted: Type.Literal(true),
}, { description: 'An object deleted, or no longer the account\'s (its farm unlinked)' });

export const ChangesPage = Type.Object({
  cursor: Type.String({ minLength: 1, maxLength: CURSOR_MAX_LENGTH, description: 'Where to resume: pass it as `since`. Opaque; valid for this account only.' }),
  changes: Type.Array(Type.Union([live('farm', Farm), live('parcel', ParcelFeature), live('crop', Crop), live('plant', PlantFeature), ChangeTombstone]),
    { description: 'Each object at most once, as it is now, in the order of its latest change' }),
  next: Nullable(Type.String({ description: 'The next page while more changes remain (absolute URL), else null' })),
});
