// An account's e-mail (the spec's account_email: an identifier only, no mail is sent to it), checked as the service
// checks it, so that the app's form refuses before sending what the service would answer with a 400.

/** The longest address the service accepts. */
export const MAX_EMAIL_LENGTH = 254;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Why `text` cannot be an account's e-mail (a sentence saying what to type), or null when it can. */
export function emailProblem(text: string): string | null {
  const t = text.trim();
  if (!t) return 'Type the account’s e-mail address.';
  if (t.length > MAX_EMAIL_LENGTH) return `The e-mail address is longer than ${MAX_EMAIL_LENGTH} characters.`;
  if (/\s/.test(t)) return 'An e-mail address has no spaces.';
  if (!EMAIL.test(t)) return 'Type an e-mail address like grower@example.com: a name, @, and a domain with a dot.';
  return null;
}
