// What the command line and the app's host load before they do anything: the modules reached from dist/cli.mjs and
// dist/host.mjs by static imports. A heavy library a rare feature needs is loaded when that feature is first used
// (a dynamic import): pdf-lib, at module load, decompresses its standard fonts — about 0.19 s of CPU, which made
// most of an unchanged pull's cost and of the host's start before an offline download (bench: pull, offline-area).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_OFFSET, Offset } from '../core/schemas/common.ts';
import { MAX_PARCEL_PAGE, PageLimit } from '../core/schemas/parcels.ts';

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

/**
 * The chunk `entry` imports dynamically that loads `source` (the CLI loads the whole backend so, for its commands but a
 * sync and an import), found through the import: dist/ may keep older builds' chunks.
 */
function dynamicChunk(entry: string, source: string): string {
  const text = readFileSync(join(DIST, entry), 'utf8');
  const found = [...new Set([...text.matchAll(/\bimport\(\s*["']\.\/([^"']+)["']\s*\)/g)].map((m) => m[1]!))]
    .filter((f) => sources(f).includes(source));
  if (found.length !== 1) throw new Error(`${entry} imports ${source} from ${found.length} chunks`);
  return found[0]!;
}

describe('start-up', () => {
  // A sync, push or pull of the command line loads the backend's sync handlers over the mirror (backend/sync-backend.ts),
  // not the whole backend: an unchanged pull is mostly the process's start-up, and the backend's other features (their
  // modules, schemas and TypeBox's value functions) were about a sixth of its CPU (~0.05 of ~0.34 s).
  it('cli.mjs loads the sync handlers and none of the backend\'s other features until a command needs them', () => {
    const loaded = sources('cli.mjs');
    expect(loaded).toContain('backend/sync-backend.ts');
    expect(loaded).toContain('backend/sync.ts');
    expect(loaded.filter((s) => ['backend/backend.ts', 'backend/layers.ts', 'backend/offline-areas.ts', 'backend/position/position.ts', 'backend/print.ts',
      'backend/parcel-tiles.ts', 'backend/plan.ts', 'core/api-position.ts'].includes(s))).toEqual([]);
    expect(ofPackage(loaded, '@sinclair/typebox').filter((s) => s.includes('/value/'))).toEqual([]);
  });

  // The command line's import runs the backend's import handler over the mirror alone (cli/main.ts importCommand): the
  // whole backend's modules were resident in the import's peak memory too (bench: mirror-import).
  it('the command line\'s import loads the import handler and none of the backend\'s other features', () => {
    const text = readFileSync(join(DIST, 'cli.mjs'), 'utf8');
    const chunks = [...new Set([...text.matchAll(/\bimport\(\s*["']\.\/([^"']+)["']\s*\)/g)].map((m) => m[1]!))]
      .filter((f) => sources(f).includes('backend/imports.ts') && !sources(f).includes('backend/backend.ts'));
    expect(chunks).toHaveLength(1);
    const loaded = [...sources('cli.mjs'), ...sources(chunks[0]!)];
    expect(loaded).toContain('backend/imports.ts');
    expect(loaded.filter((s) => ['backend/backend.ts', 'backend/layers.ts', 'backend/offline-areas.ts', 'backend/position/position.ts', 'backend/print.ts',
      'backend/parcel-tiles.ts', 'backend/plan.ts', 'backend/export.ts'].includes(s))).toEqual([]);
  });

  // The whole backend as the command line's other commands load it (from its own chunk) and as the host does.
  for (const [name, entry] of [['the whole backend', dynamicChunk('cli.mjs', 'backend/backend.ts')], ['host.mjs', 'host.mjs']] as const) {
    it(`${name} loads no print library until a map is printed`, () => {
      const loaded = sources(entry);
      // The walk itself sees the backend (else this test could pass by reading nothing).
      expect(loaded).toContain('backend/backend.ts');
      expect(loaded).toContain('backend/print.ts');
      expect([...ofPackage(loaded, 'pdf-lib'), ...ofPackage(loaded, '@pdf-lib'), ...loaded.filter((s) => s === 'backend/print-pdf.ts')]).toEqual([]);
    });

    // undici (a megabyte of code: 5 MB resident and 20 ms to load) only when a request is made, and then its Agent
    // alone (platform/node/undici.ts): its index evaluates fetch, WebSocket, cookies and the mocks (~60 ms of CPU) for
    // nothing a push calls. pmtiles and fflate serve only a PMTiles layer.
    it(`${name} loads no HTTP client and no PMTiles reader until they are used`, () => {
      const loaded = sources(entry);
      expect(loaded).toContain('backend/tile-fetcher.ts');
      expect([...ofPackage(loaded, 'undici'), ...ofPackage(loaded, 'pmtiles'), ...ofPackage(loaded, 'fflate')]).toEqual([]);
    });

    // proj4 (4 MB resident, 10–20 ms) and the EPSG definitions only when something is placed in another CRS: a
    // WGS84 import, a status, a sync start without them.
    it(`${name} loads no projection library until a CRS is asked for`, () => {
      const loaded = sources(entry);
      expect(loaded).toContain('backend/layer-file-handlers.ts');
      expect([...ofPackage(loaded, 'proj4'), ...loaded.filter((s) => s === 'core/geo/crs.ts' || s === 'backend/epsg-proj4.ts')]).toEqual([]);
    });
  }

  it('the schemas format their limits without the locale data (Offset: at most 10,000,000; a page of parcels: 10,000)', () => {
    expect(Offset.description).toContain(MAX_OFFSET.toLocaleString('en-US'));
    expect(PageLimit.description).toContain(MAX_PARCEL_PAGE.toLocaleString('en-US'));
  });
});
