// What the app's user does about a blocked account, in the app's own terms — its screens and buttons, never a
// command: one sentence for every code the engine blocks with (core/accounts/blocked.ts), shown by the Accounts
// screen, Settings and Sync details alike. The CLI words the same codes with its commands (cli/way-out.ts).
import type { BlockedCode } from '../core/accounts/blocked.ts';
import type { BlockedAccount } from '../core/api.ts';

/** Where the token of an account connected with its own token is renewed (renderer/features/accounts/TokenControls.tsx). */
const TOKEN_CONTROLS = 'Accounts → Token…';

export const BLOCKED_WORDS: Record<BlockedCode, string> = {
  invalid_api_key: "The service no longer knows the organization's API key (revoked or rotated, or the service's data was reset): connect the account again with the current key in Settings → Connect, or, if the service was reset, remove it in Accounts (A), where its unsent work can be exported first.",
  account_not_found: "The service no longer knows it (deactivated or deleted): the organization can reactivate it in the service's admin panel.",
  invalid_token: `Paste a new token, or get one from its token provider. Both are in ${TOKEN_CONTROLS}: Paste new token, or Token provider URL and Get new token now.`,
  clock_skew: `Clocks disagree (the reason says whose, and by how much): set that clock right and sync again, or get a fresh token from an issuer whose clock is right in ${TOKEN_CONTROLS}.`,
  token_command_failed: `Its token command failed or printed nothing: paste a new token in ${TOKEN_CONTROLS} (Paste new token), or fix the command on the command line it was connected with.`,
  token_provider_failed: `Fix the token provider address, or paste a new token. Both are in ${TOKEN_CONTROLS}: Token provider URL, or Paste new token.`,
  no_credentials: 'Its credentials are not on this computer (or its API key is read from FURROW_API_KEY, which is not set): connect it again in Settings → Connect.',
  refused: 'The service refused its credentials: check them and connect it again in Settings → Connect.',
};

/** The way out of a block, and the changes that wait meanwhile (none lost). */
export function wayOutHere(b: Pick<BlockedAccount, 'code' | 'waiting'>): string {
  const n = b.waiting;
  const waiting = n ? ` Its ${n.toLocaleString('en-US')} change${n === 1 ? '' : 's'} wait${n === 1 ? 's' : ''} here, none lost.` : '';
  return `${BLOCKED_WORDS[b.code]}${waiting}`;
}

/**
 * Where the status line sends the user for a block, in a few words after its reason: the screen that explains it.
 * An organization the service no longer knows (its data reset) is explained in Accounts, with its unsent work to
 * export and its accounts to remove; a token is renewed there too; credentials are given again in Settings.
 * `accountsKey`: the Accounts screen's key as mapped (none when single keys are off).
 */
export function blockedPointer(code: BlockedCode, accountsKey: string | null): string {
  const accounts = `Accounts${accountsKey ? ` (${accountsKey})` : ''}`;
  switch (code) {
    case 'invalid_api_key': return `the service no longer knows its organization: see ${accounts}, to export its unsent work and remove it.`;
    case 'account_not_found': return `the service no longer knows this account: see ${accounts}.`;
    case 'invalid_token': case 'clock_skew': case 'token_command_failed': case 'token_provider_failed': return `renew its token in ${accounts}, with its Token… button.`;
    case 'no_credentials': case 'refused': return 'connect it again in Settings → Connect.';
  }
}
