// Typechecks electron/ against Electron's own types (electron/tsconfig.json). They come with the `electron` package,
// an optional dependency: npm drops it where its postinstall cannot download the binary and
// ELECTRON_SKIP_BINARY_DOWNLOAD is not set. There the check is skipped, and says so; in CI (CI set, and .ci/run
// installs with ELECTRON_SKIP_BINARY_DOWNLOAD=1) missing types fail it instead.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
if (!existsSync(join(ROOT, 'node_modules/electron/electron.d.ts'))) {
  const why = "electron/ not typechecked: the electron package is not installed (npm drops it when its binary download fails; install with ELECTRON_SKIP_BINARY_DOWNLOAD=1 to get its types)";
  process.stderr.write(`${process.env.CI ? 'FAIL' : 'SKIPPED'}: ${why}\n`);
  process.exit(process.env.CI ? 1 : 0);
}
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'electron/tsconfig.json'), '--noEmit'], { stdio: 'inherit' });
process.exit(r.status ?? 1);
