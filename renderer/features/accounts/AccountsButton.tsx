// The status line's Accounts button, with its shortcut A (outside a field): the Accounts screen opens over the map.
import { useEffect } from 'react';
import { isField } from '../../keys.ts';
import { toggleAccounts, useAccounts } from './accounts-store.ts';
import './accounts.css';

export function AccountsButton() {
  const open = useAccounts((s) => s.open);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key.toLowerCase() !== 'a' || e.ctrlKey || e.metaKey || e.altKey || isField(e.target)) return;
      e.preventDefault();
      toggleAccounts();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  return (
    <button type="button" className="details accounts-button" aria-keyshortcuts="A" title="Accounts: every account with its state and token, create, deactivate (A)"
      aria-expanded={open} onClick={toggleAccounts}>Accounts</button>
  );
}
