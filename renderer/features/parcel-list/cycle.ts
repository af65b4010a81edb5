// Keyboard selection on the map ([ and ]): the parcels in view in reading order, north to south and then west to
// east, as a sighted user scans the map; the next or previous one after the selection, round the ends.

export interface InView { id: string; /** The parcel's centre, in the map's projection (x east, y north). */ x: number; y: number }

/**
 * The parcels in reading order: rows from the north, each row west to east. A row is the centres within `tolerance`
 * (map units) south of its northernmost one: a farm's plots are rarely exactly aligned.
 */
export function readingOrder(items: readonly InView[], tolerance = 0): InView[] {
  const north = [...items].sort((a, b) => b.y - a.y || a.x - b.x);
  const rows: InView[][] = [];
  for (const p of north) {
    const row = rows[rows.length - 1];
    if (row && row[0]!.y - p.y <= tolerance) row.push(p);
    else rows.push([p]);
  }
  return rows.flatMap((row) => row.sort((a, b) => a.x - b.x || a.id.localeCompare(b.id)));
}

/**
 * The id after (`step` 1) or before (-1) `current` in reading order, going round; without a current one in view,
 * the first (or the last going back); null when none is in view.
 */
export function cycleParcels(items: readonly InView[], current: string | null, step: 1 | -1, tolerance = 0): string | null {
  const order = readingOrder(items, tolerance);
  if (!order.length) return null;
  const at = current === null ? -1 : order.findIndex((p) => p.id === current);
  if (at < 0) return (step === 1 ? order[0] : order[order.length - 1])!.id;
  return order[(at + step + order.length) % order.length]!.id;
}
