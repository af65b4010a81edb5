// The status line's Accounts button, with its shortcut A (outside a field): the Accounts screen opens over the map.
import { useEffect } from 'react';
import { isShortcut, keyHint, useKeyName } from '../../keymap.ts';
import { toggleAccounts, useAccounts } from './accounts-store.ts';
import './accounts.css';

export function AccountsButton() {
  const open = useAccounts((s) => s.open);
  const key = useKeyName('accounts');
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!isShortcut(e, 'accounts')) return;
      e.preventDefault();
      toggleAccounts();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  return (
    <button type="button" className="details accounts-button" aria-keyshortcuts={key ?? undefined} title={`Accounts: every account with its state and token, create, deactivate${keyHint(key)}`}
      aria-expanded={open} onClick={toggleAccounts}>Accounts</button>
  );
}
