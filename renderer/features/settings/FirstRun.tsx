// The first run: no account connected yet, so the app opens on the Connect form instead of an empty map.
import { ConnectForm } from './ConnectForm.tsx';
import { openPanel } from '../../panels.ts';
import './settings.css';

export function FirstRun() {
  return (
    <div className="first-run">
      <p>Welcome to Furrow. Connect the parcel service your organization uses: its address and the credentials it gave you. The secret stays in the app&apos;s backend on this computer.</p>
      <ConnectForm heading="Connect a service" />
      <p>Working for an organization with many customer accounts? <button type="button" onClick={() => openPanel('accounts')}>Add its API key in Accounts</button> to list them, create one or connect one here.</p>
    </div>
  );
}
