// Printing the map (core/api-print.ts printMap): the host makes the PDF, not the page, so that the parcels are read
// from the mirror and drawn as vector paths (never a picture of the canvas), and the file is written, as an export
// is, into this page session's own bytes (backend/bytes.ts, 0600 in FURROW_HOME) — the page names no path and gets
// back one only it can download. The page sends only what it alone knows: the view's box, the legend it shows, the
// basemap as it drew it (a PNG), the title.
import { writeFile, rm } from 'node:fs/promises';
import { RpcCode, RpcError, type HandlersOf } from '../core/rpc.ts';
import type { PRINT_API } from '../core/api-print.ts';
import type { FarmRotation } from '../core/api-rotations.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import { NO_CROP_COLOUR } from '../core/crops/family-colours.ts';
import type { Mirror } from '../db/mirror.ts';
import type { ByteSession } from './bytes.ts';
import { accountOf, farmOf } from './views.ts';
import { fileBase } from './export.ts';
import type { PrintParcel } from './print-pdf.ts';

/**
 * pdf-lib loaded at the first print, not at every start: its standard fonts are decompressed when the module loads,
 * about 0.19 s of CPU — most of a command line's start-up and the app host's (measured on the built dist/cli.mjs).
 */
const printing = () => import('./print-pdf.ts');

/** Parcels drawn at most: the map's own limit (renderer/MapView.tsx LIMIT). */
const MAX_PARCELS = 20_000;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

interface FeatureText { geometry: { type: string; coordinates: number[][][] }; properties: { farm: string; state: string; crop?: { name: string | null; family: string | null } | null } }

export function printHandlers(mirror: Mirror, bytes: ByteSession | null, rotationOf: (farm: string) => FarmRotation | Promise<FarmRotation>): HandlersOf<typeof PRINT_API> {
  return {
    printMap: async (args) => {
      if (!bytes) throw new RpcError(RpcCode.forbidden, "'printMap' is for the app's page");
      const a = accountOf(mirror, args.account);
      const f = args.farm === undefined ? undefined : farmOf(mirror, args.farm);
      if (f && f.account_id !== args.account) throw new RpcError(ApiErrorCode.notFound, `No farm ${args.farm} in this account`);
      const png = args.basemap ? Buffer.from(args.basemap.png, 'base64') : null;
      if (png && !png.subarray(0, 8).equals(PNG_SIGNATURE)) throw new RpcError(ApiErrorCode.invalidChoice, 'The basemap image is not a PNG');
      const crops = args.colourBy !== 'state';
      const parcels: PrintParcel[] = mirror.read.viewportJson(args.bbox, MAX_PARCELS, args.account, undefined, crops).slice(0, MAX_PARCELS).map((t) => {
        const p = JSON.parse(t) as FeatureText;
        const key = args.colourBy === 'state' ? p.properties.state : args.colourBy === 'family' ? p.properties.crop?.family ?? null : p.properties.crop?.name ?? null;
        return { rings: p.geometry.coordinates, key };
      });
      const totals = f ? mirror.read.farmTotals(f.local_id) : null;
      const subtitle = f ? `${f.name} · ${totals!.parcels.toLocaleString('en-US')} parcels, ${totals!.hectares.toLocaleString('en-US', { maximumFractionDigits: 2 })} ha` : a.label || 'All farms';
      const { printPdf } = await printing();
      const pdf = await printPdf({
        title: args.title.trim() || f?.name || 'Map', subtitle, date: new Date().toISOString().slice(0, 10),
        paper: args.paper, orientation: args.orientation, bbox: args.bbox, parcels, legend: args.legend,
        otherColour: NO_CROP_COLOUR,
        ...(png ? { basemap: { png: new Uint8Array(png), credit: args.basemap!.credit } } : {}),
        ...(args.rotation && f ? { rotation: await rotationOf(f.local_id) } : {}),
      }).catch((err: unknown) => {
        // A PNG pdf-lib cannot read (interlaced, say) is the page's to know about, not an internal error.
        throw png && /png/i.test(String(err)) ? new RpcError(ApiErrorCode.invalidChoice, `The basemap image could not be read: ${err instanceof Error ? err.message : String(err)}`) : err;
      });
      const file = bytes.file('pdf');
      await writeFile(file, pdf, { mode: 0o600, flag: 'wx' });
      const fileName = `${fileBase(args.title.trim() || f?.name || 'map')} ${args.paper} ${args.orientation}.pdf`;
      let added: { path: string; size: number };
      try {
        added = bytes.add({ file, name: fileName, type: 'application/pdf' });
      } catch (err) {
        await rm(file, { force: true });
        throw new RpcError(RpcCode.disconnected, err instanceof Error ? err.message : String(err));
      }
      return { path: added.path, fileName, parcels: parcels.length, bytes: added.size };
    },
  };
}
