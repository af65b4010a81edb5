// `npm run cli`: the sync CLI from built JavaScript (dist/), rebuilt first when a source file changed since the last
// build. Compiling the TypeScript at every start (tsx) cost a few hundred milliseconds per command, longer than the
// whole push of a small farm; the build takes about as long once, and checking it is current a millisecond or two.
import process from 'node:process';
import { ensureBuilt } from './build.mjs';

const { runCli, stopOnInterrupt, syncFlags, privateUmask, endProcess } = await import(await ensureBuilt());
// Everything the CLI creates from here on is owner-only (umask 077: FURROW_HOME is the user's alone,
// platform/node/private-files.ts). Not before the build: dist/ is the checkout's, not the user's data.
privateUmask();
const argv = process.argv.slice(2);
// A sync, push or pull exits as soon as it has returned (endProcess says why).
endProcess(argv, await runCli(argv, { interrupt: stopOnInterrupt, beforeRequests: syncFlags }));
