// The window's preload (sandboxed; bundled to dist/preload.cjs by scripts/build.mjs: a sandboxed preload can require
// only `electron`). It gives the page ONE object, `window.furrow`, with two methods: ask main for the backend's port,
// and ask main to show its open dialog for a layer file (the answer a ticket the host redeems, never a path:
// electron/layer-files.ts).
// No ipcRenderer, no channel name and no Node reach the page. The port itself arrives here and is handed to the page
// with window.postMessage, the pattern Electron documents for MessagePorts under context isolation (a port cannot be
// a contextBridge return value). Main answers only this window's main frame on the app's origin (electron/trust.ts).
import { contextBridge, ipcRenderer } from 'electron';

// Duplicated from electron/trust.ts on purpose: the preload bundle stays a few lines with no import but electron.
const PORT_CHANNEL = 'furrow:port';
const CHOOSE_LAYER_FILE_CHANNEL = 'furrow:choose-layer-file';

ipcRenderer.on(PORT_CHANNEL, (event) => {
  // To this page's own origin only: a frame of another origin never receives it.
  window.postMessage({ furrow: 'port' }, window.location.origin, [...event.ports]);
});

contextBridge.exposeInMainWorld('furrow', Object.freeze({
  /** Asks for the backend's port; it comes as a 'message' event on window, data { furrow: 'port' }, ports[0]. */
  connect: (): void => ipcRenderer.send(PORT_CHANNEL),
  /** Main's open dialog for a layer file: a ticket for the file chosen (addLayerFileChosen), or null. */
  chooseLayerFile: async (): Promise<string | null> => {
    const ticket: unknown = await ipcRenderer.invoke(CHOOSE_LAYER_FILE_CHANNEL);
    return typeof ticket === 'string' ? ticket : null;
  },
}));
