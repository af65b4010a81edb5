// Export from the app: the selected parcel, or the chosen farm, as GeoJSON (re-importable) or CSV with WKT
// (docs/import-export.md). The host writes the file (exportDownload: any size, from one read of the mirror) and
// answers a bytes path; the page downloads it from there with an <a download> on its shell's origin
// (renderer/bytes-url.ts), so the file streams from disk through the shell and never crosses the API as one string.
// Electron asks where to save it, a browser puts it in its downloads.
import { useState } from 'react';
import { useApi } from '../../context.ts';
import { say, useApp } from '../../store.ts';
import { bytesUrl } from '../../bytes-url.ts';

/** Downloads the file at `url` under `fileName` (the answer's Content-Disposition names it too). */
function download(url: string, fileName: string): void {
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
}

/**
 * The selected parcel (`parcel`, its local id) or a farm (`farm`) of the shown account, or all of `account`'s parcels;
 * `label` names it for screen readers.
 */
export function ExportButtons({ parcel, farm, label, account: of }: { parcel?: string; farm?: string; label: string; account?: string }) {
  const api = useApi();
  const shown = useApp((s) => s.account?.id);
  const account = of ?? shown;
  const [busy, setBusy] = useState(false);
  const run = async (format: 'geojson' | 'csv') => {
    if (!account || busy) return;
    setBusy(true);
    try {
      const r = await api.exportDownload({ account, format, ...(parcel ? { parcels: [parcel] } : {}), ...(farm ? { farm } : {}) }, {
        onProgress: ({ done, total }) => { if (total > 2000) say(`Exporting ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} parcels…`); },
      });
      download(bytesUrl(r.path), r.fileName);
      say(`Exported ${r.parcels.toLocaleString('en-US')} parcel${r.parcels === 1 ? '' : 's'} to ${r.fileName}.`);
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
