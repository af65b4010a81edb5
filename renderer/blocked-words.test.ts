import { describe, expect, it } from 'vitest';
import { BLOCKED_CODES } from '../core/accounts/blocked.ts';
import { BLOCKED_WORDS, blockedPointer, wayOutHere } from './blocked-words.ts';

describe("a blocked account's way out, in the app's terms", () => {
  it('says what to do for every code, with the screen and the button, never a command', () => {
    expect(Object.keys(BLOCKED_WORDS).sort()).toEqual([...BLOCKED_CODES].sort());
    for (const code of BLOCKED_CODES) {
      const words = wayOutHere({ code, waiting: 0 });
      expect(words, code).toMatch(/^[A-Z].*\.$/);
      expect(words, code).not.toMatch(/npm|--|cli\b|connect --|FURROW_HOME/);
      // The account_not_found way out is the organization's, in the service's admin panel; every other names where here.
      expect(words, code).toMatch(code === 'account_not_found' ? /admin panel/ : /Accounts → Token…|Settings → Connect/);
    }
  });

  it('names the buttons that resume an account on an expired token', () => {
    expect(wayOutHere({ code: 'invalid_token', waiting: 3 })).toBe(
      'Paste a new token, or get one from its token provider. Both are in Accounts → Token…: Paste new token, or Token provider URL and Get new token now. Its 3 changes wait here, none lost.');
    expect(wayOutHere({ code: 'token_provider_failed', waiting: 1 })).toMatch(/^Fix the token provider address, or paste a new token\..* Its 1 change waits here, none lost\.$/);
    expect(wayOutHere({ code: 'refused', waiting: 0 })).toBe('The service refused its credentials: check them and connect it again in Settings → Connect.');
  });

  it("points the status line to the screen that explains a block: Accounts for an organization the service forgot", () => {
    expect(blockedPointer('invalid_api_key', 'A')).toBe('the service no longer knows its organization: see Accounts (A), to export its unsent work and remove it.');
    expect(blockedPointer('invalid_token', null)).toBe('renew its token in Accounts, with its Token… button.');
    for (const code of BLOCKED_CODES) expect(blockedPointer(code, 'A'), code).toMatch(/(Accounts|Settings)/);
  });
});
