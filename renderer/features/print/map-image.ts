// The map's pixels for a print, read from the canvases OpenLayers drew (as OpenLayers' own export example does): the
// basemap's layers alone for the PDF, whose parcels the host draws as vectors, or every layer for the PNG. A tile
// server that sends no CORS header taints its canvas and the browser refuses to read it: then there is no image, and
// the caller says so. Browser code: reads the page's DOM.

/** The layers a basemap is drawn on (features/layers/build-layer.ts and world.ts name their canvases so). */
const BASEMAP = '.ol-layer[class*="layer-"], .ol-layer.world-layer';

/** The map's viewport drawn into one canvas, `only` its basemap layers, in CSS pixels; null when there is none. */
export function mapCanvas(only: 'basemap' | 'all'): HTMLCanvasElement | null {
  const viewport = document.querySelector<HTMLElement>('.map .ol-viewport');
  if (!viewport) return null;
  const out = document.createElement('canvas');
  out.width = viewport.clientWidth;
  out.height = viewport.clientHeight;
  const g = out.getContext('2d');
  if (!g) return null;
  const layers = [...viewport.querySelectorAll<HTMLElement>('.ol-layer')].filter((l) => only === 'all' || l.matches(BASEMAP));
  let drawn = 0;
  for (const layer of layers) {
    for (const canvas of layer.querySelectorAll('canvas')) {
      if (canvas.width === 0 || canvas.height === 0) continue;
      const opacity = layer.style.opacity || canvas.style.opacity;
      g.globalAlpha = opacity === '' ? 1 : Number(opacity);
      const m = /^matrix\(([^(]*)\)$/.exec(canvas.style.transform);
      const matrix = m ? m[1]!.split(',').map(Number) : [Number.parseFloat(canvas.style.width) / canvas.width || 1, 0, 0, Number.parseFloat(canvas.style.height) / canvas.height || 1, 0, 0];
      // Each layer canvas's own transform (its pixels to the viewport's CSS pixels), as OpenLayers set it.
      g.setTransform(matrix[0]!, matrix[1]!, matrix[2]!, matrix[3]!, matrix[4]!, matrix[5]!);
      g.drawImage(canvas, 0, 0);
      drawn++;
    }
  }
  g.setTransform(1, 0, 0, 1, 0, 0);
  g.globalAlpha = 1;
  return drawn ? out : null;
}

/** A canvas as base64 PNG (no "data:" prefix); null when the browser refuses to read it (a tainted canvas). */
export function pngBase64(canvas: HTMLCanvasElement): string | null {
  try {
    return canvas.toDataURL('image/png').replace(/^data:image\/png;base64,/, '');
  } catch {
    return null;
  }
}
