// The account's embedded map on the service, opened with the filter the app shows (the spec's
// metadata[<key>]=<value>), in the system browser (Electron opens http(s) windows there) or a new tab.
import { useState } from 'react';
import { useApi } from '../../context.ts';
import { say, useApp } from '../../store.ts';
import { useBrowse } from '../browse-store.ts';

export function OpenEmbeddedMap() {
  const api = useApi();
  const account = useApp((s) => s.account?.id);
  const filter = useBrowse((s) => s.filter);
  const [busy, setBusy] = useState(false);
  const open = async () => {
    if (!account || busy) return;
    setBusy(true);
    try {
      const { url } = await api.embeddedMap({ account, ...(Object.keys(filter).length ? { metadata: filter } : {}) });
      // noopener: the map's page gets no handle on this window.
      window.open(url, '_blank', 'noopener,noreferrer');
    } catch (err) {
      say(`The embedded map could not be opened: ${err instanceof Error ? err.message : String(err)}`, true);
    } finally {
      setBusy(false);
    }
  };
  const n = Object.values(filter).reduce((k, vs) => k + vs.length, 0);
  return (
    <button type="button" className="open-embed" disabled={!account || busy} onClick={() => void open()}
      title="The service's embedded map of this account, as your customers see it, in your browser">
      Open the embedded map{n ? ' with this filter' : ''}
    </button>
  );
}
