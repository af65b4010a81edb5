// The app's backend contract, plants: the trees detected on the service (pulled only), by where they stand for the
// map, or by their parcel. Part of API (core/api.ts).
import { Type, type Static } from '@sinclair/typebox';
import { PAGE_AND_CLI, type Contract } from './rpc.ts';
import { AccountId, BBox, Id, Nullable, Obj, PolygonGeometry, Position } from './api-schemas.ts';

export const PlantFeature = Obj({
  type: Type.Literal('Feature'),
  /** The service's id: plants are detected there and only pulled. */
  id: Type.Integer(),
  geometry: Obj({ type: Type.Literal('Point'), coordinates: Position }),
  properties: Obj({
    /** The crown's outline. */
    crown: Nullable(PolygonGeometry),
    /** The crown's geodesic area in square metres (0 without a crown). */
    area: Type.Number(),
    /** The detection's free JSON. */
    info: Type.Unknown(),
    /** Local ids of its parcel and crop, when the mirror has them. */
    parcel: Nullable(Id), crop: Nullable(Id),
  }),
});
export type PlantFeature = Static<typeof PlantFeature>;
const PlantLimit = Type.Optional(Type.Integer({ minimum: 1, maximum: 50_000 }));

export const PLANTS_API = {
  plantsInView: {
    callers: PAGE_AND_CLI, description: "An account's plants whose point or crown meets the box (R*Tree), for the map",
    args: Obj({ account: AccountId, bbox: BBox, limit: PlantLimit }),
    result: Obj({ type: Type.Literal('FeatureCollection'), features: Type.Array(PlantFeature), truncated: Type.Boolean() }),
  },
  plants: {
    callers: PAGE_AND_CLI, description: "A parcel's plants: how many, then the first `limit` (10,000 unless told) by id",
    args: Obj({ parcel: Id, limit: PlantLimit }),
    result: Obj({ count: Type.Integer(), truncated: Type.Boolean(), features: Type.Array(PlantFeature) }),
  },
} satisfies Contract;
