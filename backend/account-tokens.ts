// Account mode's token (core/api-accounts.ts: accountTokens, setToken, setTokenProvider, renewToken): an account
// connected with its own bearer token shows when the token expires, takes a pasted one or fetches one from a token
// provider address. A token is kept only when it is this account's, unexpired, and — when the service can be
// reached — accepted by it. An expired token never loses work: the account waits, blocked, with its queue
// (sync/blocked.ts), and the next sync with a good token sends it.
import type { AccountCredentials } from '../sync/credentials.ts';
import { RpcError, type HandlersOf } from '../core/rpc.ts';
import type { Api, TokenState } from '../core/api.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import { tokenUrlProblem, tokenUrlShown } from '../core/accounts/token-provider.ts';
import { accountOf } from './views.ts';
import type { HostContext } from './context.ts';

type Handlers = HandlersOf<Api>;

const tokens = () => import('../sync/tokens.ts');

export function tokenHandlers(ctx: HostContext): Pick<Handlers, 'accountTokens' | 'setToken' | 'setTokenProvider' | 'renewToken'> {
  async function state(account: string, c: AccountCredentials | undefined): Promise<TokenState> {
    const { tokenExpiry } = await tokens();
    const exp = c?.token && !c.apiKey ? tokenExpiry(c.token) : null;
    return {
      account,
      source: c?.apiKey ? 'organization' : c?.tokenUrl ? 'url' : c?.tokenCommand ? 'command' : 'pasted',
      expires: exp === null ? null : new Date(exp * 1000).toISOString(),
      expired: exp !== null && exp * 1000 <= Date.now(),
      provider: c?.tokenUrl ? tokenUrlShown(c.tokenUrl) : null,
    };
  }

  /** The credentials of an account connected with its own token; the organization's bearer accounts renew by themselves. */
  function ownToken(account: string): AccountCredentials {
    const a = accountOf(ctx.mirror, account);
    const c = ctx.credentials.load()[account];
    if (a.mode !== 'bearer' || c?.apiKey) {
      throw new RpcError(ApiErrorCode.notAccountMode, `${a.label || account} is connected with the organization's API key: its access never needs a token from you`);
    }
    return c ?? { method: 'bearer' };
  }

  /**
   * Checks a token for the account and keeps it. Refused (invalid_token) when it is not this account's, expired, or
   * refused by the service; kept unchecked when the service cannot be reached (offline: the next sync tells).
   */
  async function keep(account: string, c: AccountCredentials, token: string): Promise<{ token: TokenState; checked: boolean }> {
    const { tokenExpiry, tokenSubject, StaticTokenProvider } = await tokens();
    const sub = tokenSubject(token);
    if (sub === null) throw new RpcError(ApiErrorCode.invalidToken, 'This is not an account token: paste the account_access token the organization gave you (three parts separated by dots)');
    if (sub !== account) throw new RpcError(ApiErrorCode.invalidToken, `This token is for account ${sub}, not for ${account}: nothing was changed`);
    const exp = tokenExpiry(token);
    if (exp !== null && exp * 1000 <= Date.now()) throw new RpcError(ApiErrorCode.invalidToken, `This token expired at ${new Date(exp * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC: get a new one`);
    const a = accountOf(ctx.mirror, account);
    const { ServiceClient, NetworkError, errorMessage, isAccountNotFound } = await import('../sync/http.ts');
    const { timeoutMs, deadlineMs } = ctx.durations();
    const client = new ServiceClient({
      baseUrl: a.service_url, accountId: account, timeoutMs: timeoutMs ?? 20_000, deadlineMs: deadlineMs ?? 30_000,
      credentials: { mode: 'bearer', tokens: new StaticTokenProvider({ [account]: token }) },
    });
    let checked = false;
    try {
      const res = await client.send('GET', '/api/farms/');
      if (res.status === 403 && isAccountNotFound(res.body)) throw new RpcError(ApiErrorCode.invalidToken, 'The service does not know this account any more (deactivated or deleted): a new token will not help; ask the organization');
      if (res.status === 401 || res.status === 403) throw new RpcError(ApiErrorCode.invalidToken, `The service refused the token: ${errorMessage(res)}`);
      checked = res.status === 200;
    } catch (err) {
      if (!(err instanceof NetworkError)) throw err;
    } finally {
      await client.close();
    }
    const next = { ...c, method: 'bearer' as const, token };
    ctx.credentials.save(account, next);
    ctx.emit('accounts', {});
    return { token: await state(account, next), checked };
  }

  return {
    accountTokens: async () => {
      const creds = ctx.credentials.load();
      const bearer = ctx.mirror.read.accounts().filter((a) => a.mode === 'bearer');
      return Promise.all(bearer.map((a) => state(a.id, creds[a.id])));
    },

    setToken: ({ account, token }) => keep(account, ownToken(account), token.trim()),

    setTokenProvider: async ({ account, url }) => {
      const c = ownToken(account);
      if (url !== null) {
        const problem = tokenUrlProblem(url);
        if (problem) throw new RpcError(ApiErrorCode.invalidUrl, problem);
      }
      const { tokenUrl: _old, ...rest } = c;
      const next: AccountCredentials = url === null ? rest : { ...rest, tokenUrl: url.trim() };
      ctx.credentials.save(account, next);
      ctx.emit('accounts', {});
      return state(account, next);
    },

    renewToken: async ({ account }) => {
      const c = ownToken(account);
      if (!c.tokenUrl) throw new RpcError(ApiErrorCode.invalidUrl, 'No token provider address is set for this account: set one, or paste a new token');
      const { fetchProviderToken } = await import('../sync/token-url.ts');
      let token: string;
      try {
        token = await fetchProviderToken(c.tokenUrl, account);
      } catch (err) {
        throw new RpcError(ApiErrorCode.tokenProviderFailed, `No new token: ${err instanceof Error ? err.message : String(err)}`);
      }
      return (await keep(account, c, token)).token;
    },
  };
}
