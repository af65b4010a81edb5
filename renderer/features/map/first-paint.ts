// When the map has first drawn parcels (the `furrow:parcels-drawn` mark of parcel-layers.ts), for work that should
// not compete with the first paint: the start's sync, whose pull keeps the backend busy while the map's first answer
// is read.

/** Resolves once the first parcels are on screen, or after `timeoutMs` (a view with nothing to draw never marks). */
export function parcelsDrawn(timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    if (performance.getEntriesByName('furrow:parcels-drawn').length) return resolve();
    const done = () => { observer.disconnect(); clearTimeout(timer); resolve(); };
    const observer = new PerformanceObserver((list) => { if (list.getEntriesByName('furrow:parcels-drawn').length) done(); });
    observer.observe({ type: 'mark' });
    const timer = setTimeout(done, timeoutMs);
  });
}
