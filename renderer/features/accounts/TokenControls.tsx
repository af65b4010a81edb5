// An account connected with its own bearer token (account mode): paste a new token, or keep a token provider address
// and get a new token from it now. A token the backend accepts resumes the account's sync at once; the secret lives
// only in the field while typed and is cleared after every try, accepted or not.
import { useState, type FormEvent } from 'react';
import type { AccountSummary, TokenState } from '../../../core/api.ts';
import { tokenUrlProblem } from '../../../core/accounts/token-provider.ts';
import { useApi } from '../../context.ts';
import type { AppApi } from '../../backend.ts';
import { refreshAccount } from '../../account.ts';
import { syncNow } from '../status/sync-now.ts';
import { say, useApp } from '../../store.ts';
import { accountsChanged } from './accounts-store.ts';
import { tokenWords } from './account-words.ts';

const why = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Syncs the account after a new token: what waited while the token was expired goes now. */
async function resume(api: AppApi, a: AccountSummary): Promise<void> {
  if (useApp.getState().account?.id === a.id) return syncNow(api);
  const [r] = await api.sync({ account: a.id });
  if (r?.blocked) say(`${a.label || a.id} is still blocked: ${r.blocked}`, true);
  else if (r?.unreachable) say(`${a.label || a.id}: the service could not be reached; its changes wait, none lost.`, true);
  await refreshAccount(api).catch(() => {});
}

export function TokenControls({ a, token }: { a: AccountSummary; token: TokenState }) {
  const api = useApi();
  const name = a.label || a.id;
  const [secret, setSecret] = useState('');
  const [url, setUrl] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<{ where: 'token' | 'url'; text: string } | null>(null);
  const ids = { token: `token-problem-${a.id}`, url: `url-problem-${a.id}` };

  const run = async (where: 'token' | 'url', fn: () => Promise<string>) => {
    setBusy(true);
    setProblem(null);
    try {
      say(await fn());
      await accountsChanged(api, false);
      await resume(api, a);
      await accountsChanged(api, false);
    } catch (err) {
      setProblem({ where, text: why(err) });
    } finally {
      setBusy(false);
    }
  };

  const paste = (e: FormEvent) => {
    e.preventDefault();
    const given = secret.trim();
    setSecret(''); // never kept after a try
    if (!given) return setProblem({ where: 'token', text: 'Paste the token first.' });
    void run('token', async () => {
      const r = await api.setToken({ account: a.id, token: given });
      return `New token for ${name}: ${tokenWords(r.token).text.toLowerCase()}${r.checked ? '' : ' (not checked: the service could not be reached)'}. Syncing what waited…`;
    });
  };

  const saveUrl = (e: FormEvent) => {
    e.preventDefault();
    const p = tokenUrlProblem(url);
    if (p) return setProblem({ where: 'url', text: p });
    setBusy(true);
    setProblem(null);
    api.setTokenProvider({ account: a.id, url: url.trim() }).then(async (t) => {
      setUrl('');
      say(`Token provider for ${name} saved: ${t.provider}. Get new token now, or the next sync asks it when needed.`);
      await accountsChanged(api, false);
    }, (err: unknown) => setProblem({ where: 'url', text: why(err) })).finally(() => setBusy(false));
  };

  const renew = () => void run('url', async () => {
    const t = await api.renewToken({ account: a.id });
    return `New token for ${name} from its provider: ${tokenWords(t).text.toLowerCase()}. Syncing what waited…`;
  });

  const forget = () => {
    setBusy(true);
    api.setTokenProvider({ account: a.id, url: null }).then(() => accountsChanged(api, false), (err: unknown) => setProblem({ where: 'url', text: why(err) })).finally(() => setBusy(false));
  };

  return (
    <div className="token-controls">
      <form aria-label={`New token for ${name}`} onSubmit={paste}>
        <label>Paste new token
          <input type="password" name="token" value={secret} onChange={(e) => setSecret(e.target.value)} autoComplete="off" spellCheck={false}
            aria-invalid={problem?.where === 'token' ? true : undefined} aria-describedby={problem?.where === 'token' ? ids.token : undefined} />
        </label>
        <button type="submit" disabled={busy}>Save token</button>
        {problem?.where === 'token' ? <p className="error" id={ids.token} role="alert">{problem.text}</p> : null}
      </form>
      <form aria-label={`Token provider for ${name}`} onSubmit={saveUrl}>
        <label>Token provider URL
          <input type="text" inputMode="url" name="token-url" value={url} onChange={(e) => setUrl(e.target.value)} autoComplete="off" spellCheck={false}
            placeholder={token.provider ?? 'https://example.com/furrow/token/{account}'}
            aria-invalid={problem?.where === 'url' ? true : undefined} aria-describedby={problem?.where === 'url' ? ids.url : `token-url-help-${a.id}`} />
        </label>
        <button type="submit" disabled={busy}>Save address</button>
        <button type="button" disabled={busy || !token.provider} onClick={renew} title={token.provider ? `GET ${token.provider}` : 'Save a token provider address first'}>Get new token now</button>
        {token.provider ? <button type="button" disabled={busy} onClick={forget} aria-label={`Remove the token provider of ${name}`}>Remove address</button> : null}
        <p className="muted" id={`token-url-help-${a.id}`}>{token.provider ? `Now: ${token.provider}. ` : ''}It answers GET with {'{"token": "…"}'} or the token as text; https, or http on this computer only.</p>
        {problem?.where === 'url' ? <p className="error" id={ids.url} role="alert">{problem.text}</p> : null}
      </form>
    </div>
  );
}
