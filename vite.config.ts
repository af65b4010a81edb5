// Builds the app's renderer (renderer/, React + OpenLayers) to dist/renderer, served by browser mode
// (backend/browser-server.ts) and loaded by the Electron window. Relative asset paths: both serve it from a root.
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  root: fileURLToPath(new URL('./renderer', import.meta.url)),
  base: './',
  // Never copied into the page: no inline script (the CSP forbids it), no module preload polyfill inlined.
  build: {
    outDir: fileURLToPath(new URL('./dist/renderer', import.meta.url)), emptyOutDir: true, sourcemap: true,
    assetsInlineLimit: 0, modulePreload: { polyfill: false }, chunkSizeWarningLimit: 2000,
  },
  oxc: { jsx: { runtime: 'automatic' } },
  logLevel: 'warn',
});
