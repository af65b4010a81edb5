// Online or offline (as the service answered the last sync), and the app's last message.
import { useApp } from './store.ts';

const LABEL = { unknown: 'Not synced yet', online: 'Online', offline: 'Offline' } as const;

export function StatusBar() {
  const connection = useApp((s) => s.connection);
  const message = useApp((s) => s.message);
  const lost = useApp((s) => s.backendLost);
  const account = useApp((s) => s.account);
  return (
    <footer className="statusbar">
      <span className={`connection ${connection}`} role="status" aria-label="Connection">{LABEL[connection]}</span>
      {account ? <span className="account">{account.label || account.id} · {account.service}</span> : null}
      {lost ? <span className="error" role="alert">The app&apos;s backend is gone: {lost}</span> : null}
      {message ? <span className={message.error ? 'message error' : 'message'} role="status" aria-label="Message">{message.text}</span> : null}
    </footer>
  );
}
