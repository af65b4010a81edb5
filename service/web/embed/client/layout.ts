// The part of the map the card and the detail panel leave visible. Fitting and revealing parcels aim there, so a
// parcel is never placed, or left, under the panel that describes it.
import type { Padding } from './map.ts';

interface Box { left: number; top: number; right: number; bottom: number }

const size = (b: Box): number => Math.max(0, b.right - b.left) * Math.max(0, b.bottom - b.top);

/** The open part of `map` around the visible `covers`, as padding from the map's edges with a margin added. */
export function openArea(map: HTMLElement, covers: readonly (HTMLElement | null)[]): Padding {
  const m = map.getBoundingClientRect();
  let free: Box = { left: 0, top: 0, right: m.width, bottom: m.height };
  for (const el of covers) {
    if (!el || el.hidden) continue;
    const r = el.getBoundingClientRect();
    const c: Box = { left: r.left - m.left, top: r.top - m.top, right: r.right - m.left, bottom: r.bottom - m.top };
    if (c.right <= free.left || c.left >= free.right || c.bottom <= free.top || c.top >= free.bottom) continue;
    // Keep the largest of what lies beside, above or below it: the card and the panel hug the map's edges.
    free = [
      { ...free, right: Math.min(free.right, c.left) },
      { ...free, left: Math.max(free.left, c.right) },
      { ...free, bottom: Math.min(free.bottom, c.top) },
      { ...free, top: Math.max(free.top, c.bottom) },
    ].reduce((a, b) => (size(b) > size(a) ? b : a));
  }
  // 24 px of air, less in a small frame where the panel leaves a strip; no strip at all: the whole map.
  const margin = Math.max(4, Math.min(24, Math.floor(Math.min(free.right - free.left, free.bottom - free.top) / 8)));
  if (free.right - free.left < 2 * margin + 32 || free.bottom - free.top < 2 * margin + 32) free = { left: 0, top: 0, right: m.width, bottom: m.height };
  return [free.top + margin, m.width - free.right + margin, m.height - free.bottom + margin, free.left + margin];
}

/** Whether a pixel rectangle of the map lies inside the padded area. */
export function insideArea(map: HTMLElement, padding: Padding, rect: Box): boolean {
  const { width, height } = map.getBoundingClientRect();
  const [top, right, bottom, left] = padding;
  return rect.left >= left && rect.top >= top && rect.right <= width - right && rect.bottom <= height - bottom;
}
