// The import preview's words (features/imports/): which files the app takes, what a preview found, what an import
// did. Pure, tested beside it.
import { IMPORT_EXTENSIONS, IMPORT_PREVIEW_MAX_BYTES, type ImportPreview, type ImportPreviewFeature } from '../../../core/api-imports.ts';

const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
const ha = (n: number) => n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const megabytes = (bytes: number) => (bytes / (1024 * 1024)).toLocaleString('en-US', { maximumFractionDigits: 1 });

/** What the file chooser offers (the backend tells formats by their bytes as well). */
export const ACCEPT = IMPORT_EXTENSIONS.join(',');

/** The way for a file larger than the app takes: the CLI reads any size from disk. */
export const CLI_IMPORT = 'npm run -s cli -- import FILE --farm NAME';

/** Files that are map layers (rasters, tile sets), never parcels: a user dropping one is sent to the layers panel. */
const LAYER_EXTENSIONS = ['.tif', '.tiff', '.mbtiles', '.pmtiles', '.gpkg'];

/** Why a file cannot be previewed, before a byte of it is read: not a type the app imports, or too large; null when it can. */
export function fileProblem(name: string, size: number): string | null {
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 ? name.slice(dot).toLowerCase() : '';
  if (LAYER_EXTENSIONS.includes(ext)) {
    return `${name} is imagery or tiles, not parcels: open it under the parcels from Layers (B), "Open a file as a layer…".`;
  }
  if (!(IMPORT_EXTENSIONS as readonly string[]).includes(ext)) {
    return `${name} is not a file Furrow imports: drop a GeoJSON (.geojson, .json), a KML (.kml, .kmz) or a zipped Shapefile (.zip).`;
  }
  if (size > IMPORT_PREVIEW_MAX_BYTES) {
    return `${name} is ${megabytes(size)} MB, more than the app previews (${megabytes(IMPORT_PREVIEW_MAX_BYTES)} MB): import it with the CLI, ${CLI_IMPORT}.`;
  }
  if (size === 0) return `${name} is empty: there is nothing to import.`;
  return null;
}

/** "8 features: 5 can be imported (6 parcels, 45.20 ha), 3 cannot." */
export function previewSummary(p: Pick<ImportPreview, 'total' | 'valid' | 'invalid' | 'parcels' | 'hectares'> & { duplicateFeatures?: number }): string {
  const can = p.valid === 0 ? 'none can be imported' : `${p.valid === p.total && p.total > 1 ? 'all' : p.valid.toLocaleString('en-US')} can be imported (${count(p.parcels, 'parcel')}, ${ha(p.hectares)} ha)`;
  const dup = p.duplicateFeatures ? ` (${p.duplicateFeatures === p.valid ? (p.valid > 1 ? 'all' : 'it') : p.duplicateFeatures.toLocaleString('en-US')} already in the account)` : '';
  return `${count(p.total, 'feature')}: ${can}${dup}${p.invalid && p.valid ? `, ${p.invalid.toLocaleString('en-US')} cannot` : ''}.`;
}

/** A new farm's name proposed from the file's: its name without the extension. */
export const farmNameOf = (fileName: string): string => fileName.replace(/\.[^.]+$/, '').trim() || fileName;

/** What an import did, for the status line. */
export function importedMessage(r: { imported: number; skipped: number; farmName: string; duplicates?: number }, fileName: string): string {
  const left = r.skipped ? `; ${count(r.skipped, 'feature')} with problems left out` : '';
  const there = r.duplicates ? `; ${count(r.duplicates, 'parcel')} already in the account left out` : '';
  return `Imported ${count(r.imported, 'parcel')} from ${fileName} into ${r.farmName}${left}${there}. They go to the service at the next sync; Undo takes them back.`;
}

/** A valid feature that is a parcel the account has already: "Already here: Haza del Pozo (Cortijo La Campana)". */
export function sameAsWords(f: Pick<ImportPreviewFeature, 'duplicates' | 'parcels' | 'sameAs'>): string | null {
  if (!f.duplicates || !f.sameAs) return null;
  const some = f.duplicates < f.parcels ? ` (${f.duplicates} of its ${f.parcels} parcels)` : '';
  return `Already here${some}: ${f.sameAs.name} (${f.sameAs.farm})`;
}

/** The features an import takes: the valid ones, less those all of whose parcels the account has when they are skipped. */
export const featuresToImport = (p: Pick<ImportPreview, 'valid' | 'duplicateFeatures'>, skipDuplicates: boolean): number =>
  p.valid - (skipDuplicates ? p.duplicateFeatures : 0);

/** "Polygon", "MultiPolygon · 2 parcels", "No geometry". */
export const geometryWords = (type: string | null, parcels: number): string => `${type ?? 'No geometry'}${parcels > 1 ? ` · ${count(parcels, 'parcel')}` : ''}`;
