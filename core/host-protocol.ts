// The few messages the mirror host exchanges with whoever started it (app/start.ts or a test over a child's IPC
// channel, Electron's main over a utilityProcess's parentPort, the development bridge in between), beside
// core/rpc.ts's calls. Declared once here because both sides live where they cannot import each other (electron/
// imports only core/). rpc ignores them: none carries a numeric call id.

/**
 * The first message the host reads, before it opens anything: the secrets it needs, handed over its channel (a
 * socketpair or a MessagePort), never on its command line, which /proc/<pid>/cmdline shows to every local user, nor in
 * its environment, which every child of the host inherits and /proc/<pid>/environ (0400 on Linux) shows to the same
 * user's processes and root.
 */
export const HOST_SECRETS = 'furrow:secrets';
export interface HostSecrets {
  type: typeof HOST_SECRETS;
  /** Browser mode: the launch's token (the WebSocket session check); none: no browser server. */
  browserToken?: string;
  /** The packaged app: the key safeStorage guards, that seals the accounts' secrets (sync/sealed-credentials.ts). */
  credentialKey?: string;
}

export function isHostSecrets(v: unknown): v is HostSecrets {
  if (typeof v !== 'object' || v === null || (v as { type?: unknown }).type !== HOST_SECRETS) return false;
  const s = v as Record<string, unknown>;
  const opt = (k: string) => s[k] === undefined || (typeof s[k] === 'string' && (s[k] as string).length > 0 && (s[k] as string).length <= 4096);
  return opt('browserToken') && opt('credentialKey');
}

/**
 * The host made an address for the user to open outside the app (the embedded map on the service): Electron's main
 * opens an external link only when the host announced it (electron/external-links.ts), so a page cannot make main
 * open any address it likes. `service`: the address of the account's service, which gave the link. A page may have
 * connected a service of its own choosing, whose answer is any link: main opens at once only a link on the service's
 * own origin, and asks the user first for any other.
 */
export const EXTERNAL_LINK = 'furrow:external-link';
export interface ExternalLink {
  type: typeof EXTERNAL_LINK;
  url: string;
  service: string;
}
export function isExternalLink(v: unknown): v is ExternalLink {
  if (typeof v !== 'object' || v === null || (v as { type?: unknown }).type !== EXTERNAL_LINK) return false;
  const { url, service } = v as { url?: unknown; service?: unknown };
  return typeof url === 'string' && typeof service === 'string';
}

/** What main posts to the host with a renderer's port in its transfer list. */
export const RENDERER_PORT = 'furrow:renderer-port';

/**
 * What main posts to the host with a port of its own for one app://furrow/bytes/… request (core/bytes-protocol.ts:
 * the request, the answer's head and its chunks go on that port). Main relays bytes only: it never sees an API
 * message, and the page session's key it passes on is in the address the page asked for.
 */
export const BYTES_PORT = 'furrow:bytes-port';

/**
 * Electron's main → the host: the file the user chose in main's open dialog for a layer, under a fresh ticket (16
 * random bytes, hex) main gives the page instead of the path (core/api-layer-files.ts addLayerFileChosen). Only main
 * (the host's parent) can send it: a page never names a path.
 */
export const LAYER_FILE_CHOSEN = 'furrow:layer-file-chosen';
export interface LayerFileChosen {
  type: typeof LAYER_FILE_CHOSEN;
  ticket: string;
  path: string;
}
export function isLayerFileChosen(v: unknown): v is LayerFileChosen {
  if (typeof v !== 'object' || v === null || (v as { type?: unknown }).type !== LAYER_FILE_CHOSEN) return false;
  const { ticket, path } = v as { ticket?: unknown; path?: unknown };
  return typeof ticket === 'string' && /^[0-9a-f]{32}$/.test(ticket) && typeof path === 'string' && path.length > 0 && path.length <= 4096 && !path.includes('\0');
}
