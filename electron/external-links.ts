// Which addresses main lets the system browser open (shell.openExternal), as a pure class (no electron import: tested
// by electron/external-links.test.ts under plain Node). The page never names one on its own authority: the host
// announces each external address it makes (core/host-protocol.ts EXTERNAL_LINK, today the account's embedded map on
// the service), and main opens a window.open's URL only when that very address was announced a short while ago and
// passes the check. A page that runs someone else's script (a crafted parcel name, a compromised dependency) can then
// open nothing but the host's own links: not file:, smb: or a custom protocol handler, nor a web page of its choosing.

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

/**
 * The addresses the host announced: the newest MAX_EXTERNAL_LINKS, each for EXTERNAL_LINK_TTL_MS. Compared as the
 * URL parser spells them (Chromium hands the window-open handler the address it parsed, which for the same address is
 * the same spelling), character for character: another path, case, query, fragment or a trailing character is
 * another address.
 */
export class ExternalLinks {
  /** Address → when it stops being openable; in announcement order, oldest first. */
  private readonly links = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now, private readonly max = MAX_EXTERNAL_LINKS, private readonly ttlMs = EXTERNAL_LINK_TTL_MS) {}

  /** The host made `url` for the user to open: kept if it passes the check (anything else is dropped). */
  announce(url: unknown): void {
    const href = externalUrl(url);
    if (!href) return;
    this.links.delete(href); // announced again: it moves to the newest end, with a fresh time
    this.links.set(href, this.now() + this.ttlMs);
    this.prune();
    while (this.links.size > this.max) this.links.delete(this.links.keys().next().value!);
  }

  /** The address to hand the system browser for the page's `url`, or null: not announced, expired, or not a web link. */
  opens(url: string): string | null {
    this.prune();
    const href = externalUrl(url);
    return href !== null && this.links.has(href) ? href : null;
  }

  /** How many are kept now (tests). */
  get size(): number {
    this.prune();
    return this.links.size;
  }

  private prune(): void {
    const now = this.now();
    for (const [href, until] of this.links) if (until <= now) this.links.delete(href);
  }
}
