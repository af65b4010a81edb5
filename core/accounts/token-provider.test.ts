import { describe, expect, it } from 'vitest';
import { tokenUrlFor, tokenUrlProblem, tokenUrlShown } from './token-provider.ts';
import { emailProblem } from './email.ts';

describe('token provider address', () => {
  it('accepts https anywhere and http on this computer only', () => {
    for (const ok of ['https://idp.example.com/furrow/token', 'https://idp.example.com/t/{account}?key=abc', 'http://127.0.0.1:9000/token', 'http://localhost/t', 'http://[::1]:8/t', 'http://127.3.2.1/t']) {
      expect(tokenUrlProblem(ok), ok).toBeNull();
    }
    expect(tokenUrlProblem('')).toMatch(/Type the token provider/);
    expect(tokenUrlProblem('ftp://example.com/t')).toMatch(/must start with https:\/\//);
    expect(tokenUrlProblem('idp.example.com/token')).toMatch(/must start with https:\/\//);
    expect(tokenUrlProblem('http://idp.example.com/token')).toMatch(/only for a provider on this computer/);
    expect(tokenUrlProblem('http://127.0.0.1.evil.example/token')).toMatch(/only for a provider on this computer/);
    expect(tokenUrlProblem('https://user:pw@idp.example.com/t')).toMatch(/user name or password/);
    expect(tokenUrlProblem('https://exa mple.com/t')).toMatch(/not a valid URL/);
    expect(tokenUrlProblem(`https://e.com/${'a'.repeat(2000)}`)).toMatch(/longer than/);
  });

  it('puts the account in and shows the address without its query', () => {
    expect(tokenUrlFor('https://e.com/t/{account}?a=1', 'acc-1')).toBe('https://e.com/t/acc-1?a=1');
    expect(tokenUrlShown('https://e.com/t/{account}?key=secret')).toBe('https://e.com/t/{account}?…');
    expect(tokenUrlShown('http://127.0.0.1:9/token')).toBe('http://127.0.0.1:9/token');
  });
});

describe('account e-mail', () => {
  it('refuses what the service refuses, saying what to type', () => {
    expect(emailProblem('grower@example.com')).toBeNull();
    expect(emailProblem('  grower@example.com ')).toBeNull();
    expect(emailProblem('')).toMatch(/Type the account/);
    expect(emailProblem('not-an-email')).toMatch(/like grower@example.com/);
    expect(emailProblem('a@b')).toMatch(/like grower@example.com/);
    expect(emailProblem('two words@example.com')).toMatch(/no spaces/);
    expect(emailProblem(`${'x'.repeat(250)}@example.com`)).toMatch(/longer than 254/);
  });
});
