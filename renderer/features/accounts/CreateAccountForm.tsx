// Create an account in an organization: its e-mail (the only field the service takes; checked as typed with the
// service's own rule once a first try was refused), an optional label. The backend creates it with the
// organization's key and connects it here.
import { useState, type FormEvent } from 'react';
import type { Organization } from '../../../core/api.ts';
import { emailProblem } from '../../../core/accounts/email.ts';
import { useApi } from '../../context.ts';
import { say } from '../../store.ts';
import { accountsChanged } from './accounts-store.ts';

const why = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function CreateAccountForm({ org, title }: { org: Organization; title: string }) {
  const api = useApi();
  const [email, setEmail] = useState('');
  const [label, setLabel] = useState('');
  const [tried, setTried] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const id = `new-email-${org.id}`;
  const live = tried ? emailProblem(email) : null;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    setTried(true);
    const p = emailProblem(email);
    if (p) return setProblem(null);
    setBusy(true);
    setProblem(null);
    try {
      const r = await api.createAccount({ organization: org.id, email: email.trim(), ...(label.trim() ? { label: label.trim() } : {}) });
      setEmail('');
      setLabel('');
      setTried(false);
      say(`Created ${r.email} on ${org.service} and connected it here: Show it to work on it.`);
      await accountsChanged(api);
    } catch (err) {
      setProblem(why(err));
    } finally {
      setBusy(false);
    }
  };

  const shown = live ?? problem;
  return (
    <form className="create-account" aria-label={`Create an account in ${title}`} noValidate onSubmit={(e) => void submit(e)}>
      <label>New account's e-mail
        <input type="email" name="email" value={email} onChange={(e) => setEmail(e.target.value)} placeholder="grower@example.com" autoComplete="off" spellCheck={false}
          aria-invalid={shown ? true : undefined} aria-describedby={shown ? `${id}-problem` : undefined} maxLength={300} />
      </label>
      <label>Label (optional) <input name="label" value={label} onChange={(e) => setLabel(e.target.value)} maxLength={200} placeholder="e.g. Cooperative north" /></label>
      {/* aria-disabled while it runs (submit already ignores a second press): the focus stays on the button. */}
      <button type="submit" aria-disabled={busy || undefined}>{busy ? 'Creating…' : 'Create account'}</button>
      {shown ? <p className="error" id={`${id}-problem`} role="alert">{shown}</p> : null}
    </form>
  );
}
