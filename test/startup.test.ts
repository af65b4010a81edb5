// What the command line and the app's host load before they do anything: the modules reached from dist/cli.mjs and
// dist/host.mjs by static imports. A heavy library a rare feature needs is loaded when that feature is first used
// (a dynamic import): pdf-lib, at module load, decompresses its standard fonts — about 0.19 s of CPU, which made
// most of an unchanged pull's cost and of the host's start before an offline download (bench: pull, offline-area).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_OFFSET, Offset } from '../core/schemas/common.ts';

const DIST = join(import.meta.dirname, '..', 'dist');

/** The bundle's chunks reached from `entry` by static imports, each with the source paths esbuild names in it. */
function staticGraph(entry: string): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const walk = (file: string) => {
    if (seen.has(file)) return;
    const text = readFileSync(join(DIST, file), 'utf8');
    seen.set(file, [...text.matchAll(/^\/\/ (\S+)$/gm)].map((m) => m[1]!));
    // Static imports only: `import ... from "./x.mjs"`, `import "./x.mjs"`; `import("./x.mjs")` is not followed.
    for (const m of text.matchAll(/^(?:import|export)\b[^;(]*?from\s*["']\.\/([^"']+)["']|^import\s*["']\.\/([^"']+)["']/gm)) walk((m[1] ?? m[2])!);
  };
  walk(entry);
  return seen;
}

const sources = (entry: string) => [...staticGraph(entry).values()].flat();
/** A package's files among `loaded`, wherever node_modules is (a worktree's may be ../<checkout>/node_modules). */
const ofPackage = (loaded: readonly string[], pkg: string) => loaded.filter((s) => new RegExp(`(^|/)node_modules/${pkg}/`).test(s));

describe('start-up', () => {
  for (const entry of ['cli.mjs', 'host.mjs']) {
    it(`${entry} loads no print library until a map is printed`, () => {
      const loaded = sources(entry);
      // The walk itself sees the backend (else this test could pass by reading nothing).
      expect(loaded).toContain('backend/backend.ts');
      expect(loaded).toContain('backend/print.ts');
      expect([...ofPackage(loaded, 'pdf-lib'), ...ofPackage(loaded, '@pdf-lib'), ...loaded.filter((s) => s === 'backend/print-pdf.ts')]).toEqual([]);
    });

    // undici (a megabyte of code: 5 MB resident and 20 ms to load) only when a request is made, and then its Agent
    // alone (platform/node/undici.ts): its index evaluates fetch, WebSocket, cookies and the mocks (~60 ms of CPU) for
    // nothing a push calls. pmtiles and fflate serve only a PMTiles layer.
    it(`${entry} loads no HTTP client and no PMTiles reader until they are used`, () => {
      const loaded = sources(entry);
      expect(loaded).toContain('backend/tile-fetcher.ts');
      expect([...ofPackage(loaded, 'undici'), ...ofPackage(loaded, 'pmtiles'), ...ofPackage(loaded, 'fflate')]).toEqual([]);
    });

    // proj4 (4 MB resident, 10–20 ms) and the EPSG definitions only when something is placed in another CRS: a
    // WGS84 import, a status, a sync start without them.
    it(`${entry} loads no projection library until a CRS is asked for`, () => {
      const loaded = sources(entry);
      expect(loaded).toContain('backend/layer-file-handlers.ts');
      expect([...ofPackage(loaded, 'proj4'), ...loaded.filter((s) => s === 'core/geo/crs.ts' || s === 'backend/epsg-proj4.ts')]).toEqual([]);
    });
  }

  it('the schemas format their limits without the locale data (Offset: at most 10,000,000)', () => {
    expect(Offset.description).toContain(MAX_OFFSET.toLocaleString('en-US'));
  });
});
