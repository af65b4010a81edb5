// The mirror host: one process that owns the mirror, the sync engine and the import threads, and serves the app's
// API (core/api.ts) on the channel to its parent — an Electron utilityProcess in the app, a plain child process in
// browser mode and in tests — and to each Electron window's renderer on a MessagePort of its own. FURROW_HOME says
// where the mirror and the credentials are. In browser mode
// (FURROW_BROWSER_TOKEN set) it also serves the same API to the browser's tabs itself (backend/browser-server.ts).
import { API, type ApiEvent } from '../core/api.ts';
import { serve, type Port, type Server } from '../core/rpc.ts';
import { problemsOf } from '../core/schemas/check.ts';
import { furrowHome } from '../sync/credentials.ts';
import { SealedCredentialStore } from '../sync/sealed-credentials.ts';
import { Backend } from './backend.ts';
import { startBrowserServer, type BrowserServer } from './browser-server.ts';
import { acceptRendererPorts, acceptSessions, electronParent, processPort } from './node-ports.ts';

// Read and removed before anything starts: the import threads and any command the engine runs inherit no token.
const browserToken = process.env.FURROW_BROWSER_TOKEN;
delete process.env.FURROW_BROWSER_TOKEN;

// The packaged app's main process hands the key its keychain guards (electron/main.ts): the secrets are then kept
// sealed (sync/sealed-credentials.ts); without it, in the 0600 file or FURROW_API_KEY. Removed as the token is.
const sealKey = process.env.FURROW_CREDENTIAL_KEY;
delete process.env.FURROW_CREDENTIAL_KEY;

const home = furrowHome(process.env);
const credentials = sealKey ? new SealedCredentialStore(home, Buffer.from(sealKey, 'base64')) : undefined;
const backend = new Backend({ home, env: process.env, app: true, credentials });
const servers = new Set<Server<ApiEvent>>();
const channel = processPort();
const server = serve<typeof API, ApiEvent>(API, channel, backend.handlers, { check: problemsOf });
servers.add(server);
backend.onEvent((e) => { for (const s of servers) s.emit(e); });

/** One rpc server per page (a browser tab, an Electron window's renderer), on the same handlers; the function that ends it. */
function session(port: Port): () => void {
  const tab = serve<typeof API, ApiEvent>(API, port, backend.handlers, { check: problemsOf });
  servers.add(tab);
  return () => { servers.delete(tab); tab.close(); };
}
// Electron's renderers (electron/main.ts): in the packaged app each comes as a MessagePort main transfers on the
// parentPort, straight to this process; in development through the bridge's sessions (backend/host-bridge.ts).
const parent = electronParent();
if (parent) acceptRendererPorts(parent, session);
else acceptSessions(channel, session);

let browser: BrowserServer | null = null;
if (browserToken) {
  browser = await startBrowserServer({
    port: Number(process.env.FURROW_BROWSER_PORT ?? 0), token: browserToken, root: process.env.FURROW_RENDERER_DIR ?? 'dist/renderer',
    onConnection: session,
  });
}

// The parent gone (closed, crashed): nothing is left to answer. The mirror is closed cleanly; work the engine had
// in flight is reconciled at the next start, never resent blindly.
process.on('disconnect', () => {
  for (const s of servers) s.close();
  void browser?.close();
  backend.close();
  process.exit(0);
});
