// Export from the app: the selected parcel, or the chosen farm, as GeoJSON (re-importable) or CSV with WKT
// (docs/import-export.md), in WGS84 or a chosen coordinate system (export-crs.ts). The host writes the file (exportDownload: any size, from one read of the mirror) and
// answers a bytes path; the page downloads it from there with an <a download> on its shell's origin
// (renderer/bytes-url.ts), so the file streams from disk through the shell and never crosses the API as one string.
// Electron asks where to save it, a browser puts it in its downloads.
import { useState } from 'react';
import type { Download, TableQuery } from '../../../core/api.ts';
import { useApi } from '../../context.ts';
import { say, useApp } from '../../store.ts';
import { bytesUrl } from '../../bytes-url.ts';
import { CRS_CHOICES, inCrs, lastCrs, parseEpsg, rememberCrs, WGS84_CODE } from './export-crs.ts';

const OTHER = 'other';

/** Downloads the file at `url` under `fileName` (the answer's Content-Disposition names it too); the print's too. */
export function download(url: string, fileName: string): void {
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
}

export interface ExportProps {
  /** The selected parcel's local id. */
  parcel?: string;
  farm?: string;
  /** What is exported, for screen readers: the group's name, "Export <label>". */
  label: string;
  /**
   * Each button named in full, "Export <label> as GeoJSON": where several groups sit in one list (each stale account's)
   * and a screen reader's list of buttons must not read "GeoJSON" twice for two accounts.
   */
  named?: boolean;
  /** Whose parcels: the shown account's unless given. */
  account?: string;
  /** The rows the attribute table shows (its query, of the shown account): filtered, in its order, any number. */
  table?: TableQuery;
  /** Only the parcels with changes the service does not have (a stale account's work). */
  unsent?: boolean;
  /** The word before the buttons. */
  prefix?: string;
  /** Says what was exported, instead of the plain "Exported 3 parcels to …". */
  onExported?: (r: Download) => void;
}

/**
 * The selected parcel (`parcel`, its local id) or a farm (`farm`) of the shown account, or all of `account`'s parcels
 * (only its unsent ones with `unsent`), or the attribute table's rows (`table`); `label` names it for screen readers.
 */
export function ExportButtons({ parcel, farm, table, label, account: of, unsent = false, named = false, prefix = 'Export', onExported }: ExportProps) {
  const api = useApi();
  const shown = useApp((s) => s.account?.id);
  const account = of ?? shown;
  const [busy, setBusy] = useState(false);
  const [crs, setCrs] = useState(lastCrs);
  const listed = CRS_CHOICES.some((c) => c.code === crs);
  const [other, setOther] = useState(() => (listed ? '' : String(crs)));
  const [typing, setTyping] = useState(!listed);
  const typed = typing ? parseEpsg(other) : crs;
  const choose = (code: number) => {
    setCrs(code);
    rememberCrs(code);
  };
  const run = async (format: 'geojson' | 'csv') => {
    if (!account || busy) return;
    if (typed === null) return void say(`Not exported: "${other}" is not an EPSG code (a whole number such as 25830).`, true);
    setBusy(true);
    try {
      const r = await api.exportDownload({ account, format, ...(parcel ? { parcels: [parcel] } : {}), ...(farm ? { farm } : {}), ...(table ? { table } : {}), ...(unsent ? { unsent } : {}), ...(typed !== WGS84_CODE ? { crs: typed } : {}) }, {
        onProgress: ({ done, total }) => { if (total > 2000) say(`Exporting ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} parcels…`); },
      });
      // An empty file is no use: nothing is downloaded (the caller says why).
      if (r.parcels > 0 || !onExported) download(bytesUrl(r.path), r.fileName);
      if (onExported) onExported(r);
      else say(`Exported ${r.parcels.toLocaleString('en-US')} parcel${r.parcels === 1 ? '' : 's'}${inCrs(typed)} to ${r.fileName}.`);
    } catch (err) {
      say(`Not exported: ${err instanceof Error ? err.message : String(err)}`, true);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="export" role="group" aria-label={`Export ${label}`}>
      <span className="muted">{prefix}</span>
      {/* aria-disabled, not disabled, while it runs: a disabled button drops the keyboard's focus to the page. */}
      <button type="button" aria-disabled={busy || undefined} aria-label={named ? `Export ${label} as GeoJSON` : undefined} onClick={() => void run('geojson')} title={`GeoJSON${inCrs(typed ?? crs)}: re-importable, with its metadata`}>GeoJSON</button>
      <button type="button" aria-disabled={busy || undefined} aria-label={named ? `Export ${label} as CSV` : undefined} onClick={() => void run('csv')} title={`CSV with the shape as WKT${inCrs(typed ?? crs)}, one column per metadata key`}>CSV</button>
      <select aria-label={`Coordinate system to export ${label} in`} value={typing ? OTHER : String(crs)} disabled={busy} title="The coordinate system the file is written in"
        onChange={(e) => {
          if (e.target.value === OTHER) return setTyping(true);
          setTyping(false);
          choose(Number(e.target.value));
        }}>
        {CRS_CHOICES.map((c) => <option key={c.code} value={c.code}>{c.code === WGS84_CODE ? c.name : `EPSG:${c.code} ${c.name}`}</option>)}
        <option value={OTHER}>Other EPSG code…</option>
      </select>
      {typing ? (
        <input className="export-epsg" aria-label="EPSG code" placeholder="EPSG" inputMode="numeric" size={6} value={other} disabled={busy} aria-invalid={other !== '' && typed === null}
          onChange={(e) => {
            setOther(e.target.value);
            const code = parseEpsg(e.target.value);
            if (code !== null) choose(code);
          }} />
      ) : null}
    </div>
  );
}
