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

/**
 * Whether a plant matches what was typed in the parcel's plant list: its number alone, or words found in the
 * detection's info (case ignored), every word typed: a number among them is a whole one ("row 12" is not row 120),
 * other words are found inside words ("alm" finds almond). Nothing typed matches every plant.
 */
export function plantMatches(plant: { id: number; info: unknown }, text: string): boolean {
  // A plant's number alone ("12", "#12", "plant 12") is that plant: its info may hold the same number (a row, a count).
  const id = /^(?:plant\s*|#)?(\d+)$/i.exec(text.trim());
  if (id) return plant.id === Number(id[1]);
  const words = text.trim().toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return true;
  const tokens = `plant ${plant.id} ${infoRows(plant.info).map(([k, v]) => `${k} ${v}`).join(' ')}`.toLowerCase().split(/[\s,;:"'[\]{}()]+/).filter(Boolean);
  return words.every((w) => (/^-?\d+(\.\d+)?$/.test(w) ? tokens.includes(w) : tokens.some((t) => t.includes(w))));
}
