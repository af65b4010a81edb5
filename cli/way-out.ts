// What the user of the CLI can do about a blocked account, with the commands to run: one sentence for every code
// (core/accounts/blocked.ts), said by `sync`, `status` (`way_out` in `status --json`) and `problems`. The app words
// the same codes with its own screens and buttons (renderer/blocked-words.ts).

import type { AccountRow } from '../db/types.ts';
import type { BlockedCode } from '../core/accounts/blocked.ts';

/** What the words need of the account: its id, service and how it is connected. */
export type BlockedAccountRow = Pick<AccountRow, 'id' | 'service_url' | 'mode'>;

/** The command that connects this account again, with placeholders for what the user must supply. */
function connectAgain(a: BlockedAccountRow, how: 'api_key' | 'token'): string {
  const base = `npm run -s cli -- connect --service ${a.service_url}`;
  return how === 'token' ? `${base} --token NEW_TOKEN` : `${base} --api-key NEW_KEY --account ${a.id}${a.mode === 'bearer' ? ' --bearer' : ''}`;
}

const WAY_OUT: Record<BlockedCode, (a: BlockedAccountRow) => string> = {
  invalid_api_key: (a) => `the organization's API key was revoked or rotated: connect again with the current key (${connectAgain(a, 'api_key')}), then sync`,
  account_not_found: (a) => `the service does not know this account or it was deactivated: ask the organization to reactivate it (reactivate-account ${a.id}), then sync; if it was deleted, export its parcels (export FILE --account ${a.id})`,
  invalid_token: (a) => `the token expired or was revoked: paste a new one in the app's Accounts or set its token provider there, or connect again with a fresh token (${connectAgain(a, 'token')}), or with the organization's key and --bearer so tokens renew by themselves`,
  clock_skew: () => "set the clock right that the reason names (this computer's, the service's, or that of whatever issues the tokens), then sync; a fresh token from an issuer whose clock is right works at once",
  token_command_failed: () => 'fix the token command (it runs with FURROW_ACCOUNT set to the account id and must print a token), then sync',
  token_provider_failed: () => "fix the token provider (its address must answer GET with the account's token: {\"token\": \"…\"} or the token as text), or paste a new token in the app's Accounts, then sync",
  no_credentials: (a) => `its credentials are missing from this computer: connect again (${connectAgain(a, a.mode === 'bearer' ? 'token' : 'api_key')})`,
  refused: (a) => `check the account's credentials and connect again (${connectAgain(a, 'api_key')})`,
};

/** What the user can do to unblock the account, with the commands; sync tries a blocked account again every time. */
export const wayOut = (code: BlockedCode, a: BlockedAccountRow): string => WAY_OUT[code](a);
