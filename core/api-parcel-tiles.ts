// The app's backend contract, the map's parcel tiles (issue 32): every parcel at every zoom as vector tiles the host
// cuts from the mirror (MVT, read through the page session's bytes paths), how many parcels a view holds (so the map
// reads them exactly only when they are few), and the parcel under a click found on its exact geometry, never on a
// simplified tile. Part of API (core/api.ts).
import { Type } from '@sinclair/typebox';
import { PAGE_AND_CLI, PAGE_ONLY, type Contract } from './rpc.ts';
import { AccountId, BBox, Lat, Lon, Nullable, Obj } from './api-schemas.ts';
import { ParcelFeature } from './api-parcels.ts';

export const PARCEL_TILES_API = {
  // A page's only: the path is readable by the page session that asked (its key), as long as it lasts.
  parcelTiles: {
    callers: PAGE_ONLY,
    description: "Where the page reads an account's parcel tiles: a bytes path template with {z}, {x} and {y} (XYZ rows), MVT, layer `parcels`; with `crops`, each parcel's active crop too",
    args: Obj({ account: AccountId, crops: Type.Optional(Type.Boolean()) }),
    result: Obj({ template: Type.String(), maxZoom: Type.Integer() }),
  },
  viewportCount: {
    callers: PAGE_AND_CLI, description: "How many of an account's parcels meet the box (R*Tree), counted up to `upTo`: `more` when there are more",
    args: Obj({ account: AccountId, bbox: BBox, upTo: Type.Integer({ minimum: 1, maximum: 50_000 }) }),
    result: Obj({ count: Type.Integer(), more: Type.Boolean() }),
  },
  parcelAt: {
    callers: PAGE_AND_CLI,
    description: 'The parcel under a point, on its exact geometry: one containing it (the smallest), else the nearest within `pixels` screen pixels of `pixel` degrees of longitude; null when none',
    args: Obj({
      account: AccountId, at: Type.Tuple([Lon, Lat]),
      /** A screen pixel at the point, in degrees of longitude (the map's resolution). */
      pixel: Type.Number({ exclusiveMinimum: 0, maximum: 10 }),
      pixels: Type.Optional(Type.Number({ minimum: 0, maximum: 20 })),
    }),
    result: Nullable(ParcelFeature),
  },
} satisfies Contract;
