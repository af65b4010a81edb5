// The tab's side of the reconnect pass (core/tab-pass.ts): the pass and its proof key kept in this tab's
// sessionStorage, and the check that the server now at the page's port is the app — it answers a fresh nonce with the
// proof key's HMAC, which only the host that issued the pass can make — before the pass is offered or the page reloads
// into whatever answers there. Pure browser code (WebCrypto, fetch); Node 20 has both, so its test runs in Node.
import { KEY_PATTERN, PASS_PATTERN, PROOF_PATH, type PassFrame } from '../core/tab-pass.ts';

export interface HeldPass { pass: string; key: string }

const STORE_KEY = 'furrow-pass';

export function heldPass(): HeldPass | null {
  try {
    const h = JSON.parse(sessionStorage.getItem(STORE_KEY) ?? 'null') as Partial<HeldPass> | null;
    return h && typeof h.pass === 'string' && PASS_PATTERN.test(h.pass) && typeof h.key === 'string' && KEY_PATTERN.test(h.key) ? { pass: h.pass, key: h.key } : null;
  } catch {
    return null;
  }
}

export const keepPass = (f: PassFrame) => sessionStorage.setItem(STORE_KEY, JSON.stringify({ pass: f.furrowPass, key: f.proofKey } satisfies HeldPass));
export const dropPass = () => sessionStorage.removeItem(STORE_KEY);

const hex = (b: ArrayBuffer) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, '0')).join('');
const utf8 = (s: string): Uint8Array<ArrayBuffer> => new TextEncoder().encode(s) as Uint8Array<ArrayBuffer>;

function base64url(s: string): Uint8Array<ArrayBuffer> {
  const b = atob(s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (s.length % 4)) % 4));
  return Uint8Array.from(b, (c) => c.charCodeAt(0));
}

/** Whether the server at `base` (the page's own origin when '') proves it issued `held`: never offering the pass itself. */
export async function hostProves(held: HeldPass, base = ''): Promise<boolean> {
  try {
    const digest = hex(await crypto.subtle.digest('SHA-256', utf8(held.pass)));
    const nonce = hex(crypto.getRandomValues(new Uint8Array(16)).buffer);
    const r = await fetch(`${base}${PROOF_PATH}?claim=${digest}&nonce=${nonce}`, { cache: 'no-store' });
    if (!r.ok) return false;
    const { proof } = await r.json() as { proof?: unknown };
    const key = await crypto.subtle.importKey('raw', base64url(held.key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    return typeof proof === 'string' && proof === hex(await crypto.subtle.sign('HMAC', key, utf8(nonce)));
  } catch {
    return false; // no answer, or not one of ours
  }
}
