import type { AccountRow } from '../db/types.ts';
import { ServiceClient } from './http.ts';
import { CommandTokenProvider, ServiceTokenProvider, StaticTokenProvider, type CachingProvider, type TokenProvider } from './tokens.ts';
import { UrlTokenProvider } from './token-url.ts';
import type { AccountCredentials } from './credentials.ts';
import { AccountBlocked } from './blocked.ts';
import { readAfterOf } from './read-after.ts';

export interface ClientFactoryOptions {
  timeoutMs?: number;
  deadlineMs?: number;
  maxAnswerBytes?: number;
  /** Told each token an account-mode provider (command, address) fetched, to keep it with the account's credentials. */
  onToken?: (accountId: string, token: string) => void;
}

/** Builds each account's client from its stored credentials; token providers are shared per key. */
export function clientFactory(creds: Record<string, AccountCredentials>, opts: ClientFactoryOptions = {}): (a: AccountRow) => ServiceClient {
  const providers = new Map<string, TokenProvider>();
  return (a) => {
    const c = creds[a.id];
    if (!c) throw new AccountBlocked('No credentials for this account on this computer', 'no_credentials');
    if (c.keyFromEnv && !c.apiKey) throw new AccountBlocked('Its API key is read from FURROW_API_KEY, which is not set here', 'no_credentials');
    if (c.method === 'api_key') {
      return new ServiceClient({ baseUrl: a.service_url, accountId: a.id, timeoutMs: opts.timeoutMs, deadlineMs: opts.deadlineMs, maxAnswerBytes: opts.maxAnswerBytes, readAfter: readAfterOf(a.service_url, a.id), credentials: { mode: 'api_key', apiKey: c.apiKey, accountHeader: c.accountHeader } });
    }
    const id = c.apiKey ? `svc:${a.service_url}:${c.apiKey}` : c.tokenUrl ? `url:${c.tokenUrl}` : c.tokenCommand ? `cmd:${c.tokenCommand}` : `static:${a.id}`;
    let tokens = providers.get(id);
    if (!tokens) {
      const own = c.token ? { [a.id]: c.token } : {};
      tokens = c.apiKey ? new ServiceTokenProvider(a.service_url, c.apiKey, opts.deadlineMs)
        : c.tokenUrl ? new UrlTokenProvider(c.tokenUrl, own)
        : c.tokenCommand ? new CommandTokenProvider(c.tokenCommand, own)
        : new StaticTokenProvider(own);
      if (!c.apiKey && opts.onToken) (tokens as CachingProvider).onToken = opts.onToken;
      providers.set(id, tokens);
    }
    if ((tokens instanceof CommandTokenProvider || tokens instanceof UrlTokenProvider) && c.token) tokens.seed(a.id, c.token);
    return new ServiceClient({ baseUrl: a.service_url, accountId: a.id, timeoutMs: opts.timeoutMs, deadlineMs: opts.deadlineMs, maxAnswerBytes: opts.maxAnswerBytes, readAfter: readAfterOf(a.service_url, a.id), credentials: { mode: 'bearer', tokens } });
  };
}
