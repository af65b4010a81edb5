// How a parcel's sync state shows without its colour (issue 29, item 16): states differed by hue alone (under
// deuteranopia Synced and Rejected looked the same, and in greyscale most of them), so each state also has its own
// outline dash, fill hatch or symbol, which the map (parcel-style.ts, the labels) and the legend (StateSwatch.tsx)
// both read from here.
import type { SyncState } from '../../../core/api.ts';
import { STATES, stateColor } from '../../states.ts';

/** Lines laid over a parcel's fill: `/` diagonal, `x` crossed, `-` horizontal. */
export type Hatch = 'diagonal' | 'cross' | 'horizontal';

export interface StateMark {
  /** The outline's dash pattern in pixels (canvas lineDash, SVG stroke-dasharray); null: a solid line. */
  dash: number[] | null;
  hatch: Hatch | null;
  /** A glyph before the parcel's name on the map and before the state's name in the legend; null: none. */
  symbol: string | null;
}

/**
 * Every state's marks, told apart by their shape alone. Synced, most parcels, stays plain; the states asking for the
 * user's attention (rejected, conflict) are hatched and carry a symbol, as Pending's dashes say "not yet sent".
 * Symbols are in Latin-1 or ASCII so every system font has them.
 */
const MARKS: Record<SyncState, StateMark> = {
  synced: { dash: null, hatch: null, symbol: null },
  pending: { dash: [7, 4], hatch: null, symbol: null },
  sending: { dash: [2, 3], hatch: null, symbol: null },
  uncertain: { dash: [7, 3, 2, 3], hatch: null, symbol: '?' },
  rejected: { dash: null, hatch: 'diagonal', symbol: '×' },
  conflict: { dash: null, hatch: 'cross', symbol: '!' },
  blocked: { dash: [2, 3], hatch: 'horizontal', symbol: null },
};

/** A state's marks; an unknown state's are Blocked's, as its colour is (states.ts). */
export const stateMark = (state: string): StateMark => MARKS[state as SyncState] ?? MARKS.blocked;

/** The map's background without a basemap (styles.css .map): what a parcel's outline is seen against. */
export const MAP_BACKGROUND = '#eef1ea';

/** A '#rrggbb' colour's relative luminance (WCAG 2). */
export function luminance(hex: string): number {
  const n = Number.parseInt(hex.slice(1), 16);
  const [r, g, b] = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/** WCAG's contrast ratio of two '#rrggbb' colours, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

/** What a parcel's name reads on the map: its state's symbol first, when the state has one. */
export function labelText(state: string, name: string): string {
  const symbol = stateMark(state).symbol;
  return symbol === null ? name : `${symbol} ${name}`;
}

/** Every state with its label, colour and marks, in the legend's order. */
export const STATE_LEGEND = STATES.map((s) => ({ ...s, color: stateColor(s.state), ...stateMark(s.state) }));
