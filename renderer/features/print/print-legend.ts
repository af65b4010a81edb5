// The legend a print carries: what the map's legend shows now (renderer/Legend.tsx), as keys the host matches each
// parcel on (backend/print.ts) — a sync state, or an active crop's family or name, null for no active crop — with
// their labels and colours.
import { NO_CROP_COLOUR } from '../../../core/crops/family-colours.ts';
import type { LegendEntry } from '../rotations/rotation-store.ts';

export interface PrintLegendEntry { key: string | null; label: string; colour: string }

export function printLegend(
  colourBy: 'state' | 'family' | 'crop', states: readonly { state: string; label: string; color: string }[],
  crops: readonly LegendEntry[], colourOf: (name: string) => string, bare: number, unkeyed = 0,
): PrintLegendEntry[] {
  if (colourBy === 'state') return states.map((s) => ({ key: s.state, label: s.label, colour: s.color }));
  // One grey entry for key null: no active crop, or (colouring by family) an active crop with no family.
  const grey = unkeyed && bare ? (colourBy === 'family' ? 'No active crop, or no family' : 'No active crop, or no name')
    : unkeyed ? (colourBy === 'family' ? 'Crop with no family' : 'Crop with no name') : 'No active crop';
  return [
    ...crops.map((e) => ({ key: e.name, label: e.name, colour: colourOf(e.name) })),
    ...(bare || unkeyed ? [{ key: null, label: grey, colour: NO_CROP_COLOUR }] : []),
  ];
}
