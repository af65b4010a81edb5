// Export from the app: the selected parcel, or the chosen farm, as GeoJSON (re-importable) or CSV with WKT
// (docs/import-export.md), written by the backend (exportText) and saved by the browser as a download: Electron asks
// where to save it, a browser puts it in its downloads.
import { useState } from 'react';
import { useApi } from '../../context.ts';
import { say, useApp } from '../../store.ts';

const TYPES = { geojson: 'application/geo+json', csv: 'text/csv' } as const;

/** Saves `text` as a file through the browser's download (a blob: address, revoked once taken). */
function save(text: string, fileName: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: `${type};charset=utf-8` }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** The selected parcel (`parcel`, its local id) or a farm (`farm`); `label` names it for screen readers. */
export function ExportButtons({ parcel, farm, label }: { parcel?: string; farm?: string; label: string }) {
  const api = useApi();
  const account = useApp((s) => s.account?.id);
  const [busy, setBusy] = useState(false);
  const run = async (format: 'geojson' | 'csv') => {
    if (!account || busy) return;
    setBusy(true);
    try {
      const r = await api.exportText({ account, format, ...(parcel ? { parcels: [parcel] } : {}), ...(farm ? { farm } : {}) });
      save(r.text, r.fileName, TYPES[format]);
      say(`Exported ${r.parcels} parcel${r.parcels === 1 ? '' : 's'} to ${r.fileName}.`);
    } catch (err) {
      say(`Not exported: ${err instanceof Error ? err.message : String(err)}`, true);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="export" role="group" aria-label={`Export ${label}`}>
      <span className="muted">Export</span>
      <button type="button" disabled={busy} onClick={() => void run('geojson')} title="GeoJSON: re-importable, with its metadata">GeoJSON</button>
      <button type="button" disabled={busy} onClick={() => void run('csv')} title="CSV with the shape as WKT, one column per metadata key">CSV</button>
    </div>
  );
}
