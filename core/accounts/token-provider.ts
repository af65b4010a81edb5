// The token provider of an account connected with its own bearer token (account mode): an address of the
// integrator's backend that hands out a fresh account_access token, which the spec leaves to the integrator ("a new
// one must be fetched from the integrator's backend"). One rule for the app's form and the backend.
//
// The contract, documented in docs/app.md: GET <url> (with {account} in it replaced by the account id, and the
// header Furrow-Account: <account id>), answered 200 with JSON {"token": "<jwt>"} (or {"account_access": "<jwt>"}, the
// service's own name) or with the token alone as text. The token must be for that account.
//
// https from anywhere; plain http only on this computer (the integrator's helper on 127.0.0.1): a token fetched over
// plain http from the network could be read by any hop and used for three hours.

const LOOPBACK = /^(?:127(?:\.\d{1,3}){3}|localhost|\[::1\])$/i;

/** The longest provider address kept. */
export const MAX_TOKEN_URL_LENGTH = 2000;

/** Why `text` cannot be a token provider's address (a sentence saying what to type), or null when it can. */
export function tokenUrlProblem(text: string): string | null {
  const t = text.trim();
  if (!t) return 'Type the token provider’s address, like https://example.com/furrow/token.';
  if (t.length > MAX_TOKEN_URL_LENGTH) return `The address is longer than ${MAX_TOKEN_URL_LENGTH} characters.`;
  if (!/^https?:\/\//i.test(t)) return 'The token provider’s address must start with https:// (or http:// for a provider on this computer).';
  let url: URL;
  try {
    url = new URL(t.replace(/\{account\}/g, 'acc'));
  } catch {
    return 'The token provider’s address is not a valid URL: check it for typing errors.';
  }
  if (url.username || url.password) return 'The address must not hold a user name or password.';
  if (url.protocol === 'http:' && !LOOPBACK.test(url.hostname)) {
    return 'Plain http:// is accepted only for a provider on this computer (127.0.0.1, localhost or [::1]): use its https:// address.';
  }
  return null;
}

/** The address for `account`: {account} replaced by its id. */
export const tokenUrlFor = (template: string, account: string): string => template.trim().replace(/\{account\}/g, encodeURIComponent(account));

/** The address as shown to people: scheme, host and path, without the query (which may carry the provider's own key). */
export function tokenUrlShown(template: string): string {
  try {
    const url = new URL(template.trim().replace(/\{account\}/g, '%7Baccount%7D'));
    return `${url.origin}${url.pathname.replace(/%7Baccount%7D/gi, '{account}')}${url.search ? '?…' : ''}`;
  } catch {
    return '';
  }
}
