// Builds the sync CLI, the mirror host and their import threads to dist/ with esbuild: our TypeScript and the packages
// it uses bundled into ES modules, but for better-sqlite3 and serialport (native), electron and esbuild. Bundled, a push's first
// request left about 0.2 s sooner: undici and TypeBox loaded from node_modules took 0.1–0.15 s each, most of it
// resolving and reading their hundreds of files. `node scripts/build.mjs` builds; the CLI launcher (cli.mjs) calls
// ensureBuilt(), which builds only when a source the last build read, or the lock file, has changed.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import process from 'node:process';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');
const META = join(DIST, 'cli.meta.json');
/**
 * The import worker is built beside the CLI as worker.mjs: bundled, db/import/pool.ts starts `./worker.mjs` next to
 * itself (platform/node/worker-pool.ts workerEntry). The mirror host and its import thread likewise (backend/imports.ts
 * starts `./import-worker.mjs`), and its vector overlays' thread (backend/layer-vector-thread.ts:
 * `./layer-vector-worker.mjs`) and the thread writing an offline area's tiles (backend/offline-writer.ts).
 */
const ENTRIES = {
  cli: 'cli/main.ts', worker: 'db/import/worker.ts', host: 'backend/host.ts', 'import-worker': 'backend/import-worker.ts',
  'layer-vector-worker': 'backend/layer-vector-worker.ts', 'parcel-tile-worker': 'backend/parcel-tile-worker.ts', 'offline-writer-worker': 'backend/offline-writer-worker.ts',
  // Electron's main process (package.json "main"): Electron runs JavaScript, and `electron` stays external. In
  // development its utilityProcess runs host-bridge.mjs, which starts host.mjs in system Node (backend/host-bridge.ts).
  'electron-main': 'electron/main.ts', 'host-bridge': 'backend/host-bridge.ts',
  // The parcel service (`npm run service`, the app's embedded service, the tests' service processes): bundled, a
  // command starts in ~0.5 s of CPU instead of ~2 s through tsx. Its validation threads beside it (workerEntry).
  service: 'service/cli.ts', 'validation-worker': 'service/validation-worker.ts',
};
/**
 * Files the bundled service reads beside its modules (`new URL('./x', import.meta.url)`), copied into dist/ as they
 * are: the pages' stylesheets and the checkpoint thread, plain JavaScript that is no bundle's entry.
 */
const ASSETS = ['service/web/admin/admin.css', 'service/web/landing/landing.css', 'platform/node/checkpoint-worker.mjs'];
/**
 * The window's preload, apart: a sandboxed preload is one classic script that may require only `electron` (and a
 * few of Node's modules), so it is bundled on its own as CommonJS, without the shared chunks the ES modules use.
 */
const PRELOAD = { entry: 'electron/preload.ts', out: 'preload.cjs' };

const REQUIRE_BANNER = "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);";

/**
 * The banner taken out of a module that never names `require` (all but a few: esbuild's runtime, the chunks of
 * bundled CommonJS): each createRequire cost ~0.1 ms at load, ~5 ms in the ~55 modules an unchanged pull loads. Left
 * as an empty line, so that the source map's lines still match.
 */
function dropUnusedRequire(file) {
  const text = readFileSync(file, 'utf8');
  if (!text.startsWith(`${REQUIRE_BANNER}\n`) || /\brequire\b/.test(text.slice(REQUIRE_BANNER.length))) return;
  writeFileSync(file, text.slice(REQUIRE_BANNER.length));
}

/** Builds dist/ (ENTRIES, the preload, ASSETS), and records which sources they were built from. */
export async function buildCli() {
  const { build } = await import('esbuild'); // loaded only to build: it takes longer to load than the check
  // Built aside, then moved in file by file (each rename atomic; chunk names are content hashes): a CLI starting
  // meanwhile, or a second build at the same time, never reads a half-written file.
  const temp = join(DIST, `.build-${process.pid}`);
  mkdirSync(temp, { recursive: true });
  const result = await build({
    absWorkingDir: ROOT, entryPoints: ENTRIES, outdir: temp, outExtension: { '.js': '.mjs' }, bundle: true, splitting: true, chunkNames: 'chunk-[hash]', format: 'esm',
    platform: 'node', target: 'node20', external: ['better-sqlite3', 'serialport', 'electron', 'esbuild', 'pg-native'], sourcemap: 'linked', metafile: true, logLevel: 'warning',
    // Bundled CommonJS packages (undici) require Node's modules: an ES module has no `require` of its own.
    banner: { js: REQUIRE_BANNER },
  });
  for (const f of readdirSync(temp)) if (f.endsWith('.mjs')) dropUnusedRequire(join(temp, f));
  const preload = await build({
    absWorkingDir: ROOT, entryPoints: [PRELOAD.entry], outfile: join(temp, PRELOAD.out), bundle: true, format: 'cjs', platform: 'browser',
    target: 'chrome130', external: ['electron'], sourcemap: 'linked', metafile: true, logLevel: 'warning',
  });
  for (const a of ASSETS) copyFileSync(join(ROOT, a), join(temp, basename(a)));
  const built = new Set(readdirSync(temp));
  for (const f of built) renameSync(join(temp, f), join(DIST, f));
  rmSync(temp, { recursive: true, force: true });
  // Chunks of earlier builds go once nothing can still be loading them: a CLI started before this build imports
  // its lazily loaded chunks when it reaches them, so only those more than an hour old are removed.
  for (const f of readdirSync(DIST)) {
    if (/^chunk-/.test(f) && !built.has(f) && Date.now() - statSync(join(DIST, f)).mtimeMs > 3_600_000) rmSync(join(DIST, f), { force: true });
  }
  // The packages' files stand for the lock file: a changed dependency changes it. Anywhere in the path: in a git
  // worktree whose node_modules links to another checkout's, esbuild names them ../<checkout>/node_modules/…, and
  // checking their 1,100 files made each CLI start stat 1,546 files (~25 ms) instead of ~430 (~7 ms).
  const inputs = [...new Set([...Object.keys(result.metafile.inputs), ...Object.keys(preload.metafile.inputs), ...ASSETS])].filter((f) => !/(^|\/)node_modules\//.test(f));
  if (existsSync(join(ROOT, 'package-lock.json'))) inputs.push('package-lock.json');
  // Written last, through a rename: a build cut short leaves no record, so the next start builds again.
  writeFileSync(`${META}.tmp`, JSON.stringify({ inputs }));
  renameSync(`${META}.tmp`, META);
}

/** Whether dist/ was built from the sources as they are now. */
function current() {
  if (!existsSync(META) || !existsSync(join(DIST, PRELOAD.out)) || Object.keys(ENTRIES).some((e) => !existsSync(join(DIST, `${e}.mjs`)))) return false;
  const built = statSync(META).mtimeMs;
  const { inputs } = JSON.parse(readFileSync(META, 'utf8'));
  // A source removed or renamed: no stat, so not current. Each path put together by hand: the inputs are relative
  // paths under ROOT as esbuild wrote them, and path.join's normalizing of 440 of them took 4–8 ms of every start.
  return inputs.every((f) => (statSync(`${ROOT}${sep}${f}`, { throwIfNoEntry: false })?.mtimeMs ?? Infinity) <= built);
}

/** The URL of dist/<entry>.mjs (the CLI by default), built first if a source changed. */
export async function ensureBuilt(entry = 'cli') {
  if (!current()) await buildCli();
  return pathToFileURL(join(DIST, `${entry}.mjs`)).href;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await buildCli();
