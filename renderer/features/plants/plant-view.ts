// How the plants layer sizes a plant and words its popup: pure, tested beside it.

/** Plants are drawn only at or below this resolution (metres per pixel, about zoom 16): trees 5 m apart are then a few pixels apart; further out they would be one smear and a heavy query. */
export const PLANTS_MAX_RESOLUTION = 2.5;

/** The on-screen radius of a crown of `area` m² at `resolution` m/px, never less than a visible dot. */
export const crownPixels = (area: number, resolution: number): number =>
  Math.max(3, Math.sqrt(Math.max(0, area) / Math.PI) / resolution);

/** The detection's info as label/value rows: its plain fields in order, anything nested as JSON. */
export function infoRows(info: unknown): [string, string][] {
  if (info === null || info === undefined) return [];
  if (typeof info !== 'object' || Array.isArray(info)) return [['Info', JSON.stringify(info)]];
  return Object.entries(info as Record<string, unknown>).map(([k, v]) => [
    k, typeof v === 'number' ? String(Math.round(v * 1000) / 1000) : typeof v === 'string' ? v : JSON.stringify(v),
  ]);
}

export const squareMetres = (m2: number): string => `${m2.toLocaleString('en-US', { maximumFractionDigits: 1 })} m²`;
