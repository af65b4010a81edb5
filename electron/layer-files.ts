// A layer file chosen in main's own open dialog (no electron import: tested by electron/layer-files.test.ts under
// Node). The page asks on one fixed channel; main, for the app window's main frame only (electron/trust.ts
// trustedSender), shows the native dialog, hands the host the path under a fresh ticket (core/host-protocol.ts
// LAYER_FILE_CHOSEN) and answers the page the ticket alone, which the page redeems with the host
// (core/api-layer-files.ts addLayerFileChosen). So the page never sees or names a path, and a page that asks gets
// nothing but what the user picked in a dialog it cannot fill in.
import { randomBytes } from 'node:crypto';
import { LAYER_FILE_CHOSEN, type LayerFileChosen } from '../core/host-protocol.ts';
import { LAYER_FILE_ACCEPT } from '../core/layers/layer-files.ts';

/** The channel the preload asks on (ipcRenderer.invoke); main answers a ticket, or null when nothing was chosen. */
export const CHOOSE_LAYER_FILE_CHANNEL = 'furrow:choose-layer-file';

/** The open dialog's options (Electron's OpenDialogOptions, as far as used): one file, the layer kinds first. */
export function layerFileDialog(): { title: string; buttonLabel: string; properties: ['openFile']; filters: { name: string; extensions: string[] }[] } {
  return {
    title: 'Open a file as a layer', buttonLabel: 'Open as a layer', properties: ['openFile'],
    filters: [{ name: 'Map layers', extensions: LAYER_FILE_ACCEPT.map((e) => e.slice(1)) }, { name: 'All files', extensions: ['*'] }],
  };
}

/** What the dialog answered, as the host's message with a fresh ticket; null when the user chose nothing. */
export function chosenFile(result: { canceled: boolean; filePaths: readonly string[] }): LayerFileChosen | null {
  const path = result.filePaths[0];
  if (result.canceled || !path) return null;
  return { type: LAYER_FILE_CHOSEN, ticket: randomBytes(16).toString('hex'), path };
}
