// Whether this browser can give OpenLayers a WebGL context: false where WebGL is switched off (Chromium's
// --disable-3d-apis, a blocklisted driver, a VM without GPU nor software fallback). The map then draws parcels on
// the canvas path only.
let known: boolean | null = null;

export function webglAvailable(): boolean {
  if (known !== null) return known;
  try {
    const canvas = document.createElement('canvas');
    // The context ol/webgl.js asks for first; `webgl2` is not needed by its vector layer.
    const gl = canvas.getContext('webgl') ?? canvas.getContext('experimental-webgl');
    known = gl !== null;
    // Hand the context back at once: browsers cap live contexts, and the layer makes its own.
    (gl as WebGLRenderingContext | null)?.getExtension('WEBGL_lose_context')?.loseContext();
  } catch {
    known = false;
  }
  return known;
}
