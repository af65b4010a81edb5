// The app's backend contract, the view's choices: what the map is coloured by, its metadata filter, the plants layer,
// the basemap, the account and farm shown — kept by the host in the mirror's settings (this computer's, like the accounts
// connected here), so that they survive a restart. A browser's own storage would not: it belongs to the page's
// origin, whose port may change from one start to the next. Part of API (core/api.ts).
import { Type, type Static } from '@sinclair/typebox';
import { PAGE_AND_CLI, type Contract } from './rpc.ts';
import { AccountId, Id, Lat, Lon, Nothing, Nullable, Obj, ViewportFilter } from './api-schemas.ts';

/** Where the map looked: its centre [lon, lat] and zoom level. */
export const MapPlace = Obj({ center: Type.Tuple([Lon, Lat]), zoom: Type.Number({ minimum: 0, maximum: 30 }) });
export type MapPlace = Static<typeof MapPlace>;

export const ViewSettings = Obj({
  /** The account shown. */
  account: Nullable(AccountId),
  /** The farm chosen in the farms list, of that account. */
  farm: Nullable(Id),
  /** The map coloured by sync state, crop family or active crop. */
  colourBy: Type.Union([Type.Literal('state'), Type.Literal('family'), Type.Literal('crop')]),
  /** The metadata filter on the map, of that account (empty: none). */
  filter: ViewportFilter,
  /** The plants layer on. */
  plants: Type.Boolean(),
  /** The basemap's XYZ tile address (core/basemap.ts checks it before use), or none. */
  basemap: Nullable(Type.String({ maxLength: 2048 })),
  /**
   * Where the map looked, for that account: the start goes back there when the farm it opens on has no parcels to fit
   * (an account whose only farm is empty opened on the whole world). Absent in what older versions kept.
   */
  map: Type.Optional(MapPlace),
});
export type ViewSettings = Static<typeof ViewSettings>;

export const VIEW_API = {
  viewSettings: { callers: PAGE_AND_CLI, description: "The view's choices as last kept on this computer, or null (none yet, or unreadable)", args: Obj({}), result: Nullable(ViewSettings) },
  saveViewSettings: { callers: PAGE_AND_CLI, description: "Keeps the view's choices on this computer (the mirror's settings), for the next start", args: ViewSettings, result: Nothing },
} satisfies Contract;
