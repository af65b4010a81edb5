// Main's open dialog for a layer file (electron/layer-files.ts): one file, the layer kinds offered first; what the
// user chose becomes the host's message under a fresh ticket, nothing when the dialog was cancelled — and the host's
// bridge takes exactly that message (core/host-protocol.ts isLayerFileChosen).
import { describe, expect, it } from 'vitest';
import { chosenFile, layerFileDialog } from './layer-files.ts';
import { isLayerFileChosen, LAYER_FILE_CHOSEN } from '../core/host-protocol.ts';

describe("main's layer file dialog", () => {
  it('asks for one file, the kinds the map shows first', () => {
    const d = layerFileDialog();
    expect(d.properties).toEqual(['openFile']);
    expect(d.filters[0]!.extensions).toEqual(['mbtiles', 'pmtiles', 'tif', 'tiff', 'geojson', 'json', 'kml', 'kmz', 'zip', 'gpkg']);
  });

  it('gives the host the chosen path under a fresh ticket, and nothing for a cancelled dialog', () => {
    const a = chosenFile({ canceled: false, filePaths: ['/home/ana/Ortofoto 2024.tif'] });
    const b = chosenFile({ canceled: false, filePaths: ['/home/ana/Ortofoto 2024.tif'] });
    expect(a).toMatchObject({ type: LAYER_FILE_CHOSEN, path: '/home/ana/Ortofoto 2024.tif', ticket: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(a!.ticket).not.toBe(b!.ticket);
    expect(isLayerFileChosen(a)).toBe(true);
    expect(chosenFile({ canceled: true, filePaths: ['/x'] })).toBeNull();
    expect(chosenFile({ canceled: false, filePaths: [] })).toBeNull();
  });
});

describe('the preload', () => {
  it("asks on main's channel (the preload repeats its name: it imports nothing but electron)", async () => {
    const { readFileSync } = await import('node:fs');
    const { CHOOSE_LAYER_FILE_CHANNEL } = await import('./layer-files.ts');
    expect(readFileSync(new URL('./preload.ts', import.meta.url), 'utf8')).toContain(`const CHOOSE_LAYER_FILE_CHANNEL = '${CHOOSE_LAYER_FILE_CHANNEL}';`);
  });
});
