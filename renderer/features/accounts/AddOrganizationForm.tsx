// Keep an organization's API key without connecting an account (a consultant's first step): the backend checks it by
// listing the organization's accounts and keeps it in its credential store. The key lives only in this form's field
// while typed, and is cleared after every try.
import { useState, type FormEvent } from 'react';
import { useApi } from '../../context.ts';
import { say } from '../../store.ts';
import { serviceAddress } from '../settings/connect-errors.ts';
import { accountsChanged } from './accounts-store.ts';

const why = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function AddOrganizationForm() {
  const api = useApi();
  const [service, setService] = useState('');
  const [key, setKey] = useState('');
  const [bearer, setBearer] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    const given = key.trim();
    setKey('');
    const address = serviceAddress(service);
    if ('problem' in address) return setProblem(address.problem);
    if (!given) return setProblem("Type the organization's API key.");
    setBusy(true);
    setProblem(null);
    try {
      const o = await api.addOrganization({ service: address.url, apiKey: given, ...(bearer ? { bearer } : {}) });
      say(`${o.name ?? 'The organization'} at ${o.service} is kept here: ${o.accounts?.length ?? 0} account(s) listed.`);
      await accountsChanged(api);
    } catch (err) {
      setProblem(why(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <details className="add-org">
      <summary>Add an organization by its API key</summary>
      <form aria-label="Add an organization" onSubmit={(e) => void submit(e)}>
        <label>Service address <input type="text" inputMode="url" name="service" value={service} onChange={(e) => setService(e.target.value)} placeholder="https://parcels.example.com" autoComplete="url" /></label>
        <label>Organization API key <input type="password" name="api-key" value={key} onChange={(e) => setKey(e.target.value)} autoComplete="off" /></label>
        <label className="inline"><input type="checkbox" checked={bearer} onChange={(e) => setBearer(e.target.checked)} /> Its accounts use bearer tokens fetched with the key</label>
        <button type="submit" disabled={busy}>{busy ? 'Checking…' : 'Add organization'}</button>
        {problem ? <p className="error" role="alert">{problem}</p> : null}
      </form>
    </details>
  );
}
