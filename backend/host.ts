// The mirror host: one process that owns the mirror, the sync engine and the import threads, and serves the app's
// API (core/api.ts) on the channel to its parent — an Electron utilityProcess in the app, a plain child process in
// browser mode and in tests — and to each page (an Electron window's renderer on a MessagePort of its own, a browser
// tab on browser mode's WebSocket). FURROW_HOME says where the mirror and the credentials are.
//
// Who may call what (core/rpc.ts Caller): the parent is the user's own process (npm start's launcher, a test), a
// 'cli' caller; every page is a 'page' caller, refused what only the command line may do (a path, a command).
//
// Secrets never come on the command line (/proc/<pid>/cmdline is readable by every local user) nor in the environment
// (/proc/<pid>/environ, 0400, is the same user's and root's to read, and every child inherits it): the parent's first
// message carries them (core/host-protocol.ts HOST_SECRETS), and the host opens nothing before it has them.
import { join } from 'node:path';
import { API, API_EVENTS, type ApiEvents } from '../core/api.ts';
import { serve, type Caller, type Port, type Server } from '../core/rpc.ts';
import { problemsOf } from '../core/schemas/check.ts';
import { EXTERNAL_LINK, isHostSecrets, type ExternalLink } from '../core/host-protocol.ts';
import { furrowHome } from './home.ts';
import { SealedCredentialStore } from '../sync/sealed-credentials.ts';
import { Backend } from './backend.ts';
import { startBrowserServer, type BrowserServer } from './browser-server.ts';
import { TabPasses } from './tab-passes.ts';
import { acceptRendererPorts, acceptSessions, electronParent, holdParent, parentChannel, portOf } from './node-ports.ts';
import { privateUmask } from '../platform/node/private-files.ts';
import { ByteResources } from './bytes.ts';
import { acceptBytes } from './bytes-port.ts';
import { downloadHandlers } from './downloads.ts';
import { printHandlers } from './print.ts';
import { planDownloadHandlers } from './plan.ts';
import { layerFileHandlers } from './layer-file-handlers.ts';
import { sessionErrors } from './session-errors.ts';
import { positionPageHandlers } from './position/handlers.ts';
import { bytesTtlFromEnv, SettingsError } from './settings.ts';

// Whatever the host or a library it runs creates (SQLite's -wal and -shm, the import threads' files) is the user's
// alone: the mirror is not every local user's to read.
privateUmask();

/** How long the host waits for its parent's first message before it gives up. */
const SECRETS_WAIT_MS = 30_000;

// Held from the first moment: a call or a renderer's port sent while the host waits for its secrets waits with it.
const parent = holdParent(parentChannel());
const secrets = await parent.take(isHostSecrets, SECRETS_WAIT_MS).catch((err: unknown) => {
  process.stderr.write(`The mirror host stops: ${err instanceof Error ? err.message : String(err)} (start it with backend/launch.ts or the app).\n`);
  process.exit(1);
});

const home = furrowHome(process.env);

/** A setting the host needs from the start: a bad one stops it, saying which (backend/settings.ts). */
function setting<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (!(err instanceof SettingsError)) throw err;
    process.stderr.write(`The mirror host stops: ${err.message}\n`);
    process.exit(1);
  }
}
// The packaged app's main process hands the key its keychain guards (electron/main.ts): the secrets are then kept
// sealed (sync/sealed-credentials.ts); without it, in the 0600 file or FURROW_API_KEY.
const credentials = secrets.credentialKey ? new SealedCredentialStore(home, Buffer.from(secrets.credentialKey, 'base64')) : undefined;
const backend = new Backend({
  home, env: process.env, app: true, credentials,
  // Electron's main opens an external address only when the host announced it (electron/trust.ts).
  externalLink: (url, service) => parent.postMessage({ type: EXTERNAL_LINK, url, service } satisfies ExternalLink),
});
const servers = new Set<Server<ApiEvents>>();
const channel = portOf(parent);
// What the host makes for a page to fetch (an export to download), each page session's own (backend/bytes.ts).
const bytes = new ByteResources(join(home, 'exports'), { ttlMs: setting(() => bytesTtlFromEnv(process.env)) });

function session(port: Port, caller: Caller): () => void {
  const scope = caller === 'page' ? bytes.session() : null;
  // A page's downloads, areas' tiles, layer files' bytes and uploads are its own: gone with it.
  const handlers = scope
    ? {
      ...backend.handlers, ...downloadHandlers(backend.mirror, scope, home), ...planDownloadHandlers(backend.mirror, scope), ...backend.offline.tileHandlers(scope),
      ...printHandlers(backend.mirror, scope, (farm) => backend.farmRotation(farm)),
      ...layerFileHandlers(backend.layerFiles, backend.mirror, { owner: scope, bytes: scope }),
      // A page tries receivers on the network within a limit, the command line as it likes (target-limit.ts).
      ...positionPageHandlers(backend.position),
      // The map's parcel tiles at this session's bytes paths (backend/parcel-tiles.ts).
      ...backend.tileHandlers(scope),
    }
    : backend.handlers;
  // A page is told an internal error only in general, the detail (paths and all) written to this log (stderr).
  const toError = sessionErrors(caller, (text) => process.stderr.write(text));
  const s = serve(API, port, handlers, { check: problemsOf, caller, events: API_EVENTS, toError });
  servers.add(s);
  return () => {
    servers.delete(s);
    s.close();
    scope?.close();
    if (scope) void backend.layerFiles.uploads.dropOwner(scope);
  };
}
backend.onEvent((name, payload) => { for (const s of servers) s.emit(name, payload); });
// Electron's main hands over the files the user chose in its open dialog (core/host-protocol.ts LAYER_FILE_CHOSEN).
parent.on('message', (e) => { backend.layerFiles.chosen.take(e.data); });
session(channel, 'cli');

/** One rpc server per page (a browser tab, an Electron window's renderer), on the same handlers. */
const page = (port: Port) => session(port, 'page');
// Electron's renderers (electron/main.ts): in the packaged app each comes as a MessagePort main transfers on the
// parentPort, straight to this process; in development through the bridge's sessions (backend/host-bridge.ts).
if (electronParent()) acceptRendererPorts(parent, page);
else acceptSessions(channel, page);
acceptBytes(parent, channel, bytes);
parent.release();

let browser: BrowserServer | null = null;
if (secrets.browserToken) {
  browser = await startBrowserServer({
    port: Number(process.env.FURROW_BROWSER_PORT ?? 0), token: secrets.browserToken, root: process.env.FURROW_RENDERER_DIR ?? 'dist/renderer',
    onConnection: page, bytes, passes: new TabPasses(join(home, 'tab-passes.json')),
  });
}

// The parent gone (closed, crashed): nothing is left to answer. The mirror is closed cleanly; work the engine had
// in flight is reconciled at the next start, never resent blindly.
const shutdown = () => {
  for (const s of servers) s.close();
  void browser?.close();
  bytes.close();
  backend.close();
  process.exit(0);
};
process.on('disconnect', shutdown);
// Ctrl+C, or the terminal closed (SIGHUP), reaches every process of the launcher's group, this one too: it closes the
// mirror as when its parent goes, rather than dying mid-write (the launcher closes the channel meanwhile, app/start.ts).
process.once('SIGINT', shutdown);
process.once('SIGHUP', shutdown);
