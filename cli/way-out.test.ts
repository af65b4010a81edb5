import { describe, expect, it } from 'vitest';
import { BLOCKED_CODES, type BlockedCode } from '../core/accounts/blocked.ts';
import { wayOut } from './way-out.ts';

const key = { id: 'acc-1', service_url: 'http://s', mode: 'api_key' } as const;
const bearer = { ...key, mode: 'bearer' } as const;
const connect = 'npm run -s cli -- connect --service http://s';

/** The CLI's words for every code, as `sync`, `status` and `problems` print them. */
const EXPECTED: Record<BlockedCode, [apiKey: string, bearer: string]> = {
  invalid_api_key: [
    `the organization's API key was revoked or rotated: connect again with the current key (${connect} --api-key NEW_KEY --account acc-1), then sync`,
    `the organization's API key was revoked or rotated: connect again with the current key (${connect} --api-key NEW_KEY --account acc-1 --bearer), then sync`,
  ],
  account_not_found: Array(2).fill(
    'the service does not know this account or it was deactivated: ask the organization to reactivate it (reactivate-account acc-1), then sync; if it was deleted, export its parcels (export FILE --account acc-1)',
  ) as [string, string],
  invalid_token: Array(2).fill(
    `the token expired or was revoked: paste a new one in the app's Accounts or set its token provider there, or connect again with a fresh token (${connect} --token NEW_TOKEN), or with the organization's key and --bearer so tokens renew by themselves`,
  ) as [string, string],
  clock_skew: Array(2).fill(
    "set the clock right that the reason names (this computer's, the service's, or that of whatever issues the tokens), then sync; a fresh token from an issuer whose clock is right works at once",
  ) as [string, string],
  token_command_failed: Array(2).fill('fix the token command (it runs with FURROW_ACCOUNT set to the account id and must print a token), then sync') as [string, string],
  token_provider_failed: Array(2).fill(
    'fix the token provider (its address must answer GET with the account\'s token: {"token": "…"} or the token as text), or paste a new token in the app\'s Accounts, then sync',
  ) as [string, string],
  no_credentials: [
    `its credentials are missing from this computer: connect again (${connect} --api-key NEW_KEY --account acc-1)`,
    `its credentials are missing from this computer: connect again (${connect} --token NEW_TOKEN)`,
  ],
  refused: [
    `check the account's credentials and connect again (${connect} --api-key NEW_KEY --account acc-1)`,
    `check the account's credentials and connect again (${connect} --api-key NEW_KEY --account acc-1 --bearer)`,
  ],
};

describe("the CLI's way out of a blocked account", () => {
  it('says what to do for every code, with the command to run', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...BLOCKED_CODES].sort());
    for (const code of BLOCKED_CODES) {
      expect(wayOut(code, key), code).toBe(EXPECTED[code][0]);
      expect(wayOut(code, bearer), code).toBe(EXPECTED[code][1]);
    }
  });
});
