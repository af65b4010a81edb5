// Import of parcel files (GeoJSON, KML/KMZ, zipped Shapefile) into the local mirror. Rules in docs/import-export.md.
//
// All or nothing, for the whole file: the farm (when new) and every chunk of parcels are written inside one
// outer transaction, so a file is never half-imported — not on an invalid feature, and not on a crash or a
// full disk halfway either. Chunks go through MirrorWriter.createParcels (the one place parcels are validated
// and created, with their outbox ops and undo history): each chunk is a savepoint of its own and one undo
// entry ("Import fields.geojson (5,001–10,000 of 12,000)"); creating the farm is one more. The import runs
// synchronously once the file is read: run it off the UI thread for big files.

import { basename } from 'node:path';
import type { Mirror } from '../mirror.ts';
import type { FarmRow } from '../types.ts';
import { validateParcel, type ParcelProblem } from '../../core/parcels/validate.ts';
import { toParcelInputs, type ImportProblem, type Origin, type ParcelInput } from './convert.ts';
import { ImportError } from './errors.ts';
import { readSource } from './read.ts';

export { ImportError } from './errors.ts';
export type { ImportErrorCode } from './errors.ts';
export type { ImportProblem } from './convert.ts';
export { HECTARES_KEYS, NAME_KEYS } from './convert.ts';

/** Parcels per createParcels call: big enough for fast bulk inserts, small enough for steady progress. */
export const IMPORT_CHUNK = 5000;

export interface ImportOptions {
  accountId: string;
  /** The farm receiving the parcels: the account's live farm of that name, else a new one. */
  farmName: string;
  /** Import the valid features and report the others, instead of importing nothing. */
  skipInvalid?: boolean;
  /** Parcels processed (validated, and written when valid) out of all the file's parcels, after each chunk. */
  onProgress?: (done: number, total: number) => void;
}

export interface ImportReport {
  farm: FarmRow;
  /** Parcels created, counting each part of a split MultiPolygon. */
  imported: number;
  /** With skipInvalid: one entry per problem of each feature left out, by feature index. */
  skipped: ImportProblem[];
  /** How many of the imported parcels are parts of a split MultiPolygon. */
  parts: number;
}

export async function importFile(mirror: Mirror, file: string, opts: ImportOptions): Promise<ImportReport> {
  const name = basename(file);
  const farmName = opts.farmName.trim();
  if (farmName === '') throw new ImportError('no_farm_name', 'An import needs the name of the farm receiving the parcels');
  if (!mirror.read.account(opts.accountId)) throw new ImportError('no_account', `No such account in this mirror: ${opts.accountId}`);

  const source = await readSource(file);
  if (source.features.length === 0) throw new ImportError('empty', `${name} has no features to import`);
  const converted = toParcelInputs(source.features, { farmName, furrowExport: source.furrowExport });
  const maxHectares = mirror.write.parcelLimit(opts.accountId);
  const { inputs, origins } = dropBrokenMultiParts(converted.inputs, converted.origins, converted.problems, maxHectares);
  const problems = converted.problems;
  const skipInvalid = opts.skipInvalid === true;
  const total = inputs.length;
  const chunks = Math.ceil(total / IMPORT_CHUNK);
  const fmt = (n: number) => n.toLocaleString('en-US');

  return mirror.syncDb.transaction((): ImportReport => {
    // Once the import is known to fail, the rest of the file is only validated (to list every problem),
    // not written: everything written so far is rolled back with the throw below anyway.
    let failed = problems.length > 0 && !skipInvalid;
    let farm = mirror.read.farmByName(opts.accountId, farmName);
    let imported = 0;
    let parts = 0;
    opts.onProgress?.(0, total);
    for (let start = 0; start < total; start += IMPORT_CHUNK) {
      const chunk = inputs.slice(start, start + IMPORT_CHUNK);
      let found: ParcelProblem[];
      if (failed) {
        found = chunk.flatMap((input, i) => validateParcel(input, i, { maxHectares }).problems);
      } else {
        farm ??= mirror.write.createFarm(opts.accountId, farmName);
        const label = chunks > 1 ? `Import ${name} (${fmt(start + 1)}–${fmt(start + chunk.length)} of ${fmt(total)})` : `Import ${name}`;
        // skipInvalid here even when the caller did not ask for it: a bad chunk is then found without an
        // exception, and the import still fails as a whole below.
        const r = mirror.write.createParcels(farm.local_id, chunk, { skipInvalid: true, label });
        found = r.problems;
        imported += r.created.length;
        const bad = new Set(found.map((p) => p.index));
        for (let i = 0; i < chunk.length; i++) if (!bad.has(i) && origins[start + i]!.parts > 1) parts++;
        if (found.length > 0 && !skipInvalid) failed = true;
      }
      for (const p of found) problems.push(fromParcelProblem(p, origins[start + p.index]!));
      opts.onProgress?.(start + chunk.length, total);
    }
    problems.sort((a, b) => a.index - b.index || (a.part ?? 0) - (b.part ?? 0));
    const badFeatures = new Set(problems.map((p) => p.index)).size;
    if (failed) {
      throw new ImportError('invalid_features',
        `${name}: ${badFeatures} of ${source.features.length} feature(s) cannot be imported, so nothing was imported (${problems[0]!.message}). ` +
        'Fix them, or import only the valid ones.', problems);
    }
    if (imported === 0 || farm === undefined) {
      throw new ImportError('invalid_features', `${name}: none of its ${source.features.length} feature(s) can be imported (${problems[0]?.message ?? 'no parcels'})`, problems);
    }
    return { farm, imported, skipped: problems, parts };
  })();
}

/** A core problem (indexed within its chunk, "Parcel 3: …") as a problem of the file's feature. */
function fromParcelProblem(p: ParcelProblem, origin: Origin): ImportProblem {
  const split = origin.parts > 1;
  const detail = p.message.replace(/^Parcel \d+: /, '');
  const where = split ? `Feature ${origin.index} (part ${origin.part} of ${origin.parts})` : `Feature ${origin.index}`;
  return { index: origin.index, ...(split ? { part: origin.part } : {}), code: p.code, message: `${where}: ${detail}` };
}

/**
 * A MultiPolygon is one field in several pieces: when one piece is invalid the whole feature is, and
 * skipInvalid must not import the other pieces as if the field were complete. Their parts are validated
 * here (they are few) and a feature with a bad part is left out entirely, its problems recorded.
 */
function dropBrokenMultiParts(inputs: ParcelInput[], origins: Origin[], problems: ImportProblem[], maxHectares: number): { inputs: ParcelInput[]; origins: Origin[] } {
  if (!origins.some((o) => o.parts > 1)) return { inputs, origins };
  const keep = { inputs: [] as ParcelInput[], origins: [] as Origin[] };
  for (let i = 0; i < inputs.length;) {
    const n = origins[i]!.parts;
    if (n === 1) {
      keep.inputs.push(inputs[i]!);
      keep.origins.push(origins[i]!);
      i++;
      continue;
    }
    const found = inputs.slice(i, i + n).flatMap((input, k) => validateParcel(input, k, { maxHectares }).problems);
    if (found.length === 0) {
      keep.inputs.push(...inputs.slice(i, i + n));
      keep.origins.push(...origins.slice(i, i + n));
    } else {
      for (const p of found) problems.push(fromParcelProblem(p, origins[i + p.index]!));
    }
    i += n;
  }
  return keep;
}
