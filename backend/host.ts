// The mirror host: one process that owns the mirror, the sync engine and the import threads, and serves the app's
// API (core/api.ts) on the channel to its parent — an Electron utilityProcess in the app, a plain child process in
// browser mode and in tests. FURROW_HOME says where the mirror and the credentials are.
import { API } from '../core/api.ts';
import { serve } from '../core/rpc.ts';
import { problemsOf } from '../core/schemas/check.ts';
import { furrowHome } from '../sync/credentials.ts';
import { Backend } from './backend.ts';
import { processPort } from './node-ports.ts';

const backend = new Backend({ home: furrowHome(process.env), env: process.env, app: true });
const server = serve(API, processPort(), backend.handlers, { check: problemsOf });
backend.onEvent((e) => server.emit(e));

// The parent gone (closed, crashed): nothing is left to answer. The mirror is closed cleanly; work the engine had
// in flight is reconciled at the next start, never resent blindly.
process.on('disconnect', () => {
  server.close();
  backend.close();
  process.exit(0);
});
