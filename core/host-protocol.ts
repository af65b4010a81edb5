// The few messages the mirror host exchanges with whoever started it (app/start.ts or a test over a child's IPC
// channel, Electron's main over a utilityProcess's parentPort, the development bridge in between), beside
// core/rpc.ts's calls. Declared once here because both sides live where they cannot import each other (electron/
// imports only core/). rpc ignores them: none carries a numeric call id.

/**
 * The first message the host reads, before it opens anything: the secrets it needs, handed over its channel (a
 * socketpair or a MessagePort), never in its environment or on its command line, where /proc/<pid>/environ and
 * /proc/<pid>/cmdline would show them to every local user.
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
 * opens an external link only when the host announced it (electron/trust.ts), so a page cannot make main open any
 * address it likes.
 */
export const EXTERNAL_LINK = 'furrow:external-link';
export interface ExternalLink {
  type: typeof EXTERNAL_LINK;
  url: string;
}
export function isExternalLink(v: unknown): v is ExternalLink {
  return typeof v === 'object' && v !== null && (v as { type?: unknown }).type === EXTERNAL_LINK && typeof (v as { url?: unknown }).url === 'string';
}

/** What main posts to the host with a renderer's port in its transfer list. */
export const RENDERER_PORT = 'furrow:renderer-port';
