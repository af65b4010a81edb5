// Builds the renderer (Vite, vite.config.ts) into dist/renderer when a source it is built from changed since: what
// `npm start` and the end-to-end tests call first, so a clean checkout needs no separate build step.
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..');
export const RENDERER_DIR = join(ROOT, 'dist', 'renderer');
/** What the bundle is made of: the renderer, the domain code it imports, the build's configuration and packages. */
const SOURCES = ['renderer', 'core', 'vite.config.ts', 'package-lock.json'];

function newest(path: string): number {
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  let t = 0;
  for (const e of readdirSync(path)) t = Math.max(t, newest(join(path, e)));
  return t;
}

export async function ensureRenderer(log: (line: string) => void = () => {}): Promise<string> {
  const index = join(RENDERER_DIR, 'index.html');
  const built = existsSync(index) ? statSync(index).mtimeMs : 0;
  if (SOURCES.some((s) => newest(join(ROOT, s)) > built)) {
    log('Building the app (renderer/ → dist/renderer)…');
    const { build } = await import('vite'); // loaded only when it builds: it is slow to load
    // Built aside and moved in whole: an app serving dist/renderer meanwhile, or a second build at once (two test
    // files on a clean checkout), never sees a half-written or emptied folder.
    const temp = join(ROOT, 'dist', `.renderer-${process.pid}-${Date.now()}`);
    try {
      await build({ configFile: join(ROOT, 'vite.config.ts'), logLevel: 'warn', build: { outDir: temp, emptyOutDir: true } });
      rmSync(RENDERER_DIR, { recursive: true, force: true });
      try {
        renameSync(temp, RENDERER_DIR);
      } catch (err) {
        // Another build moved its own in between: the same sources, so the same result.
        if (!existsSync(index)) throw err;
      }
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  }
  return RENDERER_DIR;
}
