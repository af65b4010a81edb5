// The app's backend contract, exports: an account's, a farm's or some parcels as GeoJSON or CSV with WKT, written to a
// path (the command line's). The page downloads them instead (exportDownload, core/api-downloads.ts). Part of API
// (core/api.ts).
import { Type } from '@sinclair/typebox';
import { CLI_ONLY, type Contract } from './rpc.ts';
import { AccountId, Id, Obj } from './api-schemas.ts';

export const EXPORT_API = {
  exportFile: {
    // A path names any file the user may write: the command line's. The page downloads what the host writes (exportDownload).
    callers: CLI_ONLY, description: 'Writes parcels (one account, one farm, or all) as GeoJSON (.geojson/.json) or CSV with WKT (.csv), as they were when it began; cancellable',
    args: Obj({ path: Type.String({ minLength: 1, maxLength: 4096 }), account: Type.Optional(AccountId), farm: Type.Optional(Id) }),
    result: Obj({ format: Type.Union([Type.Literal('geojson'), Type.Literal('csv')]), parcels: Type.Integer() }),
    progress: Obj({ done: Type.Integer(), total: Type.Integer() }),
  },
} satisfies Contract;
