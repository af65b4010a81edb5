// Connect another service's account: its address and either the organization's API key with the account id, or an
// account token (core/api.ts connect). The secret lives only in this form's state while typed, is handed to the
// backend (which keeps it in its credential store) and cleared after every submit: never in the store, never in
// localStorage, never shown again.
import { useState, type FormEvent } from 'react';
import type { AccountSummary } from '../../../core/api.ts';
import { useApi } from '../../context.ts';
import { connectProblem, serviceAddress } from './connect-errors.ts';
import { connected } from './account-actions.ts';

type Method = 'apiKey' | 'token';

export function ConnectForm({ heading, service: initialService = '', onConnected }: { heading: string; service?: string; onConnected?: (a: AccountSummary) => void }) {
  const api = useApi();
  const [service, setService] = useState(initialService);
  const [method, setMethod] = useState<Method>('apiKey');
  const [account, setAccount] = useState('');
  const [label, setLabel] = useState('');
  const [secret, setSecret] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    const given = secret;
    setSecret(''); // cleared at once, whatever the answer: the field never keeps a secret after a submit
    const address = serviceAddress(service);
    if ('problem' in address) return setProblem(address.problem);
    setBusy(true);
    setProblem(null);
    try {
      const r = await api.connect({
        service: address.url, ...(label.trim() ? { label: label.trim() } : {}),
        ...(method === 'token' ? { token: given.trim() } : { apiKey: given.trim(), account: account.trim() }),
      });
      setAccount('');
      setLabel('');
      onConnected?.(r.account);
      await connected(api, r.account);
    } catch (err) {
      setProblem(connectProblem(err, address.url));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="connect" aria-label="Connect another service" onSubmit={(e) => void submit(e)}>
      <h2>{heading}</h2>
      <label>Service address
        <input type="text" inputMode="url" name="service" value={service} onChange={(e) => setService(e.target.value)} placeholder="http://127.0.0.1:8080" required autoComplete="url" />
      </label>
      <fieldset className="method">
        <legend>Credentials</legend>
        <label className="inline"><input type="radio" name="method" checked={method === 'apiKey'} onChange={() => setMethod('apiKey')} /> Organization API key and account id</label>
        <label className="inline"><input type="radio" name="method" checked={method === 'token'} onChange={() => setMethod('token')} /> Account token</label>
      </fieldset>
      {method === 'apiKey' ? (
        <>
          <label>API key <input type="password" name="api-key" value={secret} onChange={(e) => setSecret(e.target.value)} required autoComplete="off" /></label>
          <label>Account id <input name="account" value={account} onChange={(e) => setAccount(e.target.value)} placeholder="acc-…" required autoComplete="off" spellCheck={false} /></label>
        </>
      ) : (
        <label>Token <input type="password" name="token" value={secret} onChange={(e) => setSecret(e.target.value)} required autoComplete="off" /></label>
      )}
      <label>Label (optional) <input name="label" value={label} onChange={(e) => setLabel(e.target.value)} maxLength={200} placeholder="e.g. Cooperative north" /></label>
      {problem ? <p className="error" role="alert">{problem}</p> : null}
      <div className="buttons">
        <button type="submit" disabled={busy}>{busy ? 'Connecting…' : 'Connect'}</button>
      </div>
    </form>
  );
}
