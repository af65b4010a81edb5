// The optional online basemap: which XYZ tile addresses the app accepts, and the image sources browser mode's CSP
// allows for them — one rule for both sides (the renderer's settings and backend/browser-server.ts), so a URL the
// settings accept is never one the page's policy then blocks.
//
// https tiles from anywhere; plain http only from this computer (a local tile server for offline use): tiles
// fetched over http from the network would travel unencrypted and let any network hop watch where the user works.

/** CSP img-src sources a basemap needs, beside 'self' data: blob:. Images only: no script, style or connect. */
export const BASEMAP_IMG_SOURCES = ['https:', 'http://127.0.0.1:*', 'http://localhost:*'] as const;

const LOOPBACK = new Set(['127.0.0.1', 'localhost']);

/**
 * Whether a request for `url` is one BASEMAP_IMG_SOURCES allows (https from anywhere, http from 127.0.0.1 or
 * localhost, any port), without a user or password in it: the same list as a network rule, for Electron's main, which
 * cancels every request of its window that leaves the app (core/page-policy.ts allowsRequest).
 */
export function isBasemapImageUrl(url: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.username || u.password) return false;
  return u.protocol === 'https:' || (u.protocol === 'http:' && LOOPBACK.has(u.hostname));
}

/** Why an XYZ URL template cannot be used (a sentence saying what to type instead), or null when it can. */
export function basemapUrlProblem(template: string): string | null {
  const t = template.trim();
  if (!/^https?:\/\//i.test(t)) return 'The tile address must start with https:// (or http:// for a tile server on this computer).';
  for (const p of ['{z}', '{x}', '{y}']) {
    if (!t.includes(p)) return `The tile address needs ${p}, as in https://tile.example.org/{z}/{x}/{y}.png.`;
  }
  let url: URL;
  try {
    // The placeholders are not valid in every part of a URL: parsed with numbers in their place.
    url = new URL(t.replace(/\{[a-z-]+\}/gi, '0'));
  } catch {
    return 'The tile address is not a valid URL: check it for typing errors.';
  }
  if (url.username || url.password) return 'The tile address must not hold a user name or password.';
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname)) return 'Plain http:// tiles are accepted only from this computer (127.0.0.1 or localhost): use the https:// address.';
  return null;
}
