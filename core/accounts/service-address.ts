// A parcel service's address, as an account or an organization keeps it: one rule for the backend (sync/connect.ts,
// backend/organizations.ts) and whoever else checks one first. The address is kept in mirror.db and shown to the page.

/** The longest service address kept (the API's argument has the same cap, core/api-accounts.ts). */
export const MAX_SERVICE_LENGTH = 2000;

/**
 * Why `text` cannot be a service's address, as a sentence saying what to type; null when it can. http(s), a host,
 * an optional path (a service behind a proxy's prefix), and nothing else: no user name or password — the address is
 * kept in mirror.db and shown to the page, the secret goes in its own field (as the token provider's rule says,
 * core/accounts/token-provider.ts) — and no query or fragment, which no request would ever carry (the client appends
 * its paths to the address's path only).
 */
export function serviceAddressProblem(text: string): string | null {
  const t = text.trim();
  const what = t.length > 100 ? `${t.slice(0, 99)}…` : t;
  if (t.length > MAX_SERVICE_LENGTH) return `The service address is longer than ${MAX_SERVICE_LENGTH} characters.`;
  if (!/^https?:\/\/[^\s/]+/i.test(t) || /\s/.test(t)) return `Not a service address: ${what} (type it whole, like https://parcels.example.org)`;
  let url: URL;
  try {
    url = new URL(t);
  } catch {
    return `Not a service address: ${what} (check it for typing errors)`;
  }
  if (!url.hostname) return `Not a service address: ${what} (it names no host)`;
  if (url.username || url.password) return 'The service address must not hold a user name or password: the API key or token goes in its own field.';
  if (url.search || url.hash || /[?#]/.test(t)) return 'The service address takes no ? or # part: give the address the service answers on, like https://parcels.example.org or https://example.org/furrow.';
  return null;
}

/** `text` as an account or an organization keeps its service's address (trimmed, no trailing slash), or why it cannot be one. */
export function serviceAddress(text: string): { service: string } | { problem: string } {
  const service = text.trim().replace(/\/+$/, '');
  const problem = serviceAddressProblem(service);
  return problem === null ? { service } : { problem };
}
