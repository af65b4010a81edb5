// The app's backend contract, printing: the map as a PDF the host writes (backend/print.ts) — the view's parcels drawn
// as vector paths from the mirror, in the colours of the legend the page shows, with the title, the farm, the date,
// the legend, a scale bar, a north arrow, the basemap as the page drew it (an image), and the farm's rotation table
// on a second page — answered, as an export is, as a bytes path only this page session can download. Part of API
// (core/api.ts).
import { Type } from '@sinclair/typebox';
import { PAGE_ONLY, type Contract } from './rpc.ts';
import { AccountId, BBox, Id, Nullable, Obj } from './api-schemas.ts';
import { Download } from './api-export.ts';

/** The basemap image at most: a 1280×800 view as PNG is a megabyte or two; an A3 sheet's view a few more. */
export const MAX_PRINT_IMAGE_BASE64 = 16 * 1024 * 1024;

export const PrintLegendEntry = Obj({
  /** What a parcel is matched on: its sync state, its active crop's family or name; null: no active crop. */
  key: Nullable(Type.String({ maxLength: 255 })),
  label: Type.String({ maxLength: 255 }),
  colour: Type.String({ pattern: '^#[0-9a-fA-F]{6}$' }),
});

export const PRINT_API = {
  printMap: {
    callers: PAGE_ONLY,
    description: 'The map as a PDF (A4/A3, portrait/landscape) written by the host: vector parcels of the view, legend, scale bar, north arrow, date, the basemap image, optionally the farm\'s rotation table; downloaded at the path answered',
    args: Obj({
      account: AccountId,
      farm: Type.Optional(Id),
      title: Type.String({ maxLength: 200 }),
      /** The view: what the map shows, in longitude and latitude. */
      bbox: BBox,
      paper: Type.Union([Type.Literal('A4'), Type.Literal('A3')]),
      orientation: Type.Union([Type.Literal('portrait'), Type.Literal('landscape')]),
      colourBy: Type.Union([Type.Literal('state'), Type.Literal('family'), Type.Literal('crop')]),
      legend: Type.Array(PrintLegendEntry, { maxItems: 40 }),
      /** The basemap as the page drew the view, a PNG in base64, and its credit. */
      basemap: Type.Optional(Obj({ png: Type.String({ maxLength: MAX_PRINT_IMAGE_BASE64 }), credit: Type.String({ maxLength: 500 }) })),
      rotation: Type.Optional(Type.Boolean()),
    }),
    result: Download,
  },
} satisfies Contract;
