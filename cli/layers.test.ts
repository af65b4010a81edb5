// `npm run -s cli -- layers`: the map's layers listed, a file added by path (copied into FURROW_HOME/layers/, told
// by its bytes, put on top of the layers, shown) and a layer removed with its file; what the map cannot show refused
// in words (exit 1), a missing argument a usage error (exit 2). In process: runCli, the function the script runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './main.ts';
import { rasterMbtiles, overlayGeojson } from '../test/helpers/layer-fixtures.ts';

let dir: string;
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'furrow-cli-layers-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(home: string, args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const status = await runCli(args, { env: { FURROW_HOME: home }, stdout: { write: (s: string) => { stdout += s; } }, stderr: { write: (s: string) => { stderr += s; } } });
  return { status, stdout, stderr };
}

describe('cli layers', () => {
  it('adds a file by path on top of the layers, lists them, and removes one with its file', async () => {
    const home = join(dir, 'home');
    const mbtiles = rasterMbtiles(dir, 'Ortofoto PNOA', [255, 128, 0]);
    const list = async () => JSON.parse((await cli(home, ['layers'])).stdout) as { id: string; name: string; kind: string; format?: string }[];
    expect(await list()).toEqual([{ id: 'world', name: 'World (Natural Earth)', kind: 'world', visible: true, opacity: 1 }]);

    const added = await cli(home, ['layers', 'add', mbtiles]);
    expect(added.status).toBe(0);
    expect(added.stdout).toMatch(/^Added layer "Ortofoto PNOA" \(mbtiles-raster, [\d.]+ MB\) on top of the map's layers, as file-[0-9a-f]{32}\.\n$/);
    const geo = await cli(home, ['layers', 'add', overlayGeojson(dir)]);
    expect(geo.stdout).toMatch(/^Added layer "drains" \(vector, [\d.]+ MB, 4 features\) .*\n {2}1 feature\(s\) without a shape were left out\.\n$/);
    const layers = await list();
    expect(layers.map((l) => [l.kind, l.format ?? null, l.name])).toEqual([['world', null, 'World (Natural Earth)'], ['file', 'mbtiles-raster', 'Ortofoto PNOA'], ['file', 'vector', 'drains']]);
    const kept = () => readdirSync(join(home, 'layers')).filter((f) => !f.endsWith('.json'));
    expect(kept().map((f) => f.split('.')[1]).sort()).toEqual(['geojson', 'mbtiles']);

    const removed = await cli(home, ['layers', 'remove', layers[1]!.id]);
    expect([removed.status, removed.stdout]).toEqual([0, 'Removed layer "Ortofoto PNOA" and its file.\n']);
    expect(kept().map((f) => f.split('.')[1])).toEqual(['geojson']);
    expect((await list()).map((l) => l.name)).toEqual(['World (Natural Earth)', 'drains']);
  }, 60_000);

  it('refuses what the map cannot show in words, and bad usage with the usage', async () => {
    const home = join(dir, 'refusals');
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'nothing');
    const r = await cli(home, ['layers', 'add', text]);
    expect([r.status, r.stderr]).toEqual([1, 'error: notes.txt is not a file the map shows: open MBTiles, PMTiles, GeoTIFF, GeoJSON, KML/KMZ, a zipped Shapefile or a GeoPackage.\n']);
    expect((await cli(home, ['layers', 'add', join(dir, 'nowhere.tif')])).stderr).toMatch(/^nowhere\.tif cannot be read: ENOENT/);
    expect(readdirSync(join(home, 'layers'))).toEqual([]);
    for (const args of [['layers', 'add'], ['layers', 'remove'], ['layers', 'remove', 'world'], ['layers', 'remove', 'nope'], ['layers', 'frobnicate'], ['layers', 'add', 'a', 'b']]) {
      const u = await cli(home, args);
      expect(u.status, args.join(' ')).toBe(2);
      expect(u.stderr, args.join(' ')).toMatch(/Usage: npm run -s cli/);
    }
  }, 60_000);
});
