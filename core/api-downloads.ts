// The app's backend contract, downloads: a file the host writes for the page and hands over as bytes at a path both
// shells serve (core/bytes-protocol.ts, /bytes/<session key>/<id>/<name>), so that any size crosses — streamed from
// disk by browser mode's server or Electron's main, never as one JSON string in an answer. Part of API (core/api.ts).
import { Type, type Static } from '@sinclair/typebox';
import type { Caller, Contract } from './rpc.ts';
import { AccountId, Id, Obj } from './api-schemas.ts';

/**
 * A page's only: the bytes path is readable by the page session that asked (its key), for a limited time. The command
 * line writes a file where it likes (exportFile).
 */
export const PAGE_ONLY = ['page'] as const satisfies readonly Caller[];

export const ExportFormat = Type.Union([Type.Literal('geojson'), Type.Literal('csv')]);

export const Download = Obj({
  /** Where the page fetches it: a URL path under /bytes/ on the page's own origin (renderer/bytes-url.ts), never a file's path. */
  path: Type.String(),
  /** The name it is saved under (its Content-Disposition says it too). */
  fileName: Type.String(),
  parcels: Type.Integer(),
  /** Its size. */
  bytes: Type.Integer(),
});
export type Download = Static<typeof Download>;

export const DOWNLOADS_API = {
  exportDownload: {
    callers: PAGE_ONLY,
    description: "An account's parcels (a farm's, or the ones given) as a GeoJSON or CSV file written by the host, as they were when it began, to download at the path answered (any size; progress; cancellable)",
    args: Obj({
      account: AccountId, farm: Type.Optional(Id), parcels: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 1000 })),
      format: ExportFormat,
    }),
    result: Download,
    progress: Obj({ done: Type.Integer(), total: Type.Integer() }),
  },
} satisfies Contract;
