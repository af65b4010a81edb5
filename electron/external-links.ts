// Which addresses main lets the system browser open (shell.openExternal), as a pure class (no electron import: tested
// by electron/external-links.test.ts under plain Node). The page never names one on its own authority: the host
// announces each external address it makes (core/host-protocol.ts EXTERNAL_LINK, today the account's embedded map on
// the service) with the address of the account's service, and main opens a window.open's URL only when that very
// address was announced a short while ago and passes the check. A page that runs someone else's script (a crafted
// parcel name, a compromised dependency) can then open nothing but the host's own links: not file:, smb: or a custom
// protocol handler, nor a web page of its choosing.
//
// But the host's link is what the service answered, and a page may connect a service of its own (any address, any
// answer: `GET /api/accounts/<id>/` with an `embedded_url` of its choosing). So a link opens at once only when it is
// on the service's own origin; any other is put to the user first (main's native dialog, linkDialog below: the site
// named, Cancel the default), who can see whether it is where the embedded map of that service should be.

/** How many announced addresses main keeps (the newest), and for how long each. */
export const MAX_EXTERNAL_LINKS = 20;
export const EXTERNAL_LINK_TTL_MS = 10 * 60_000;
/** Longer addresses are not kept (the map's address with a filter is a few hundred characters). */
const MAX_URL_LENGTH = 8192;

/**
 * The address as the URL parser spells it, when the system browser may be handed it: http or https, no user name or
 * password (`https://service.example@evil.example/` reads as one host and goes to another). Null for anything else,
 * or what does not parse.
 */
export function externalUrl(url: unknown): string | null {
  if (typeof url !== 'string' || url.length > MAX_URL_LENGTH) return null;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  if (u.username || u.password || !u.hostname) return null;
  return u.href;
}

/** The origin of a service's address (what a link on it must share to open at once), or null. */
function originOf(service: unknown): string | null {
  if (typeof service !== 'string') return null;
  try {
    const u = new URL(service);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
  } catch {
    return null;
  }
}

/** A host and port as the URL parser writes them (an internationalized name in its xn-- form: no lookalike letters). */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** What main does with a window.open of the page: open the address at once, ask the user first, or nothing (null). */
export type LinkDecision =
  | { action: 'open'; href: string }
  | { action: 'ask'; href: string; host: string; service: string };

/**
 * The addresses the host announced: the newest MAX_EXTERNAL_LINKS, each for EXTERNAL_LINK_TTL_MS. Compared as the
 * URL parser spells them (Chromium hands the window-open handler the address it parsed, which for the same address is
 * the same spelling), character for character: another path, case, query, fragment or a trailing character is
 * another address.
 */
export class ExternalLinks {
  /** Address → when it stops being openable, and its service's origin; in announcement order, oldest first. */
  private readonly links = new Map<string, { until: number; service: string | null; serviceHost: string }>();

  constructor(private readonly now: () => number = Date.now, private readonly max = MAX_EXTERNAL_LINKS, private readonly ttlMs = EXTERNAL_LINK_TTL_MS) {}

  /**
   * The host made `url` for the user to open, from the account's service at `service`: kept if it passes the check
   * (anything else is dropped).
   */
  announce(url: unknown, service: unknown): void {
    const href = externalUrl(url);
    if (!href) return;
    this.links.delete(href); // announced again: it moves to the newest end, with a fresh time
    const origin = originOf(service);
    this.links.set(href, { until: this.now() + this.ttlMs, service: origin, serviceHost: origin ? hostOf(origin) : 'the account\'s service' });
    this.prune();
    while (this.links.size > this.max) this.links.delete(this.links.keys().next().value!);
  }

  /**
   * What to do with the page's `url`: null when it was not announced, has expired, or is not a web link; open it at
   * once when it is on its service's origin; else ask the user first.
   */
  decide(url: string): LinkDecision | null {
    this.prune();
    const href = externalUrl(url);
    const link = href === null ? undefined : this.links.get(href);
    if (!href || !link) return null;
    if (link.service !== null && new URL(href).origin === link.service) return { action: 'open', href };
    return { action: 'ask', href, host: hostOf(href), service: link.serviceHost };
  }

  /** How many are kept now (tests). */
  get size(): number {
    this.prune();
    return this.links.size;
  }

  private prune(): void {
    const now = this.now();
    for (const [href, { until }] of this.links) if (until <= now) this.links.delete(href);
  }
}

/** The answer of linkDialog's dialog that opens the link (Cancel, the first, is the default and Esc's). */
export const OPEN_BUTTON = 1;

/**
 * The native dialog (Electron's dialog.showMessageBox options) that asks before a link off its service's origin is
 * opened: the site named as the URL parser writes it, Cancel the default.
 */
export function linkDialog(ask: Extract<LinkDecision, { action: 'ask' }>): {
  type: 'question'; title: string; message: string; detail: string; buttons: string[]; defaultId: number; cancelId: number; noLink: true;
} {
  return {
    type: 'question',
    title: 'Open in your browser?',
    message: `Open ${ask.host} in your browser?`,
    detail: `The embedded map of ${ask.service} is there. Open it only if you expect that service's map on ${ask.host}.`,
    buttons: ['Cancel', 'Open'],
    defaultId: 0,
    cancelId: 0,
    noLink: true,
  };
}
