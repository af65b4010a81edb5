// The embedded map's browser bundle, built from client/ with esbuild inside the service: no separate build step,
// so `npm start` and the tests serve the current source. Built on the first request for it and kept in memory.
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

export interface Asset {
  body: Buffer;
  /** Compressed once with the build, so a page load never spends CPU on it. */
  gzip: Buffer;
  etag: string;
  type: string;
}

export interface Bundle {
  js: Asset;
  css: Asset;
  build_ms: number;
}

// From source, beside this file; bundled into dist/ (scripts/build.mjs), this file's place in the tree is gone and
// the client is found from the repository's root, where dist/ is.
const ENTRY = import.meta.url.endsWith('.ts')
  ? resolve(import.meta.dirname, 'client/main.ts')
  : resolve(import.meta.dirname, '../service/web/embed/client/main.ts');

function asset(text: string, type: string): Asset {
  const body = Buffer.from(text);
  return { body, gzip: gzipSync(body, { level: 9 }), etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`, type };
}

async function buildBundle(): Promise<Bundle> {
  const t0 = performance.now();
  // Imported here, not at the top: most service processes (tests, CLI) never serve the map and need not load esbuild.
  const { build } = await import('esbuild');
  const out = await build({
    entryPoints: { app: ENTRY },
    bundle: true,
    write: false,
    minify: true,
    // An IIFE, not a module: the page loads it with a plain deferred <script src>, no inline code needed.
    format: 'iife',
    target: 'es2020',
    outdir: 'embed-out',
    loader: { '.css': 'css' },
    legalComments: 'none',
    logLevel: 'silent',
  });
  const file = (ext: string) => {
    const f = out.outputFiles.find((o) => o.path.endsWith(ext));
    if (!f) throw new Error(`esbuild produced no ${ext} output for the embedded map`);
    return f.text;
  };
  return {
    js: asset(file('.js'), 'text/javascript; charset=utf-8'),
    css: asset(file('.css'), 'text/css; charset=utf-8'),
    build_ms: Math.round(performance.now() - t0),
  };
}

// One build per process, shared by every app instance (the tests build many); a failed build is retried.
let pending: Promise<Bundle> | null = null;

export function embedBundle(): Promise<Bundle> {
  if (!pending) {
    pending = buildBundle();
    pending.catch(() => { pending = null; });
  }
  return pending;
}
