// Print or export the map (issue 33): a title (the farm's name unless changed), A4 or A3, portrait or landscape, the
// farm's rotation table on a second page or not; then a PDF, which the host makes (printMap: the view's parcels from
// the mirror as vector paths, the legend the map shows, a scale bar, a north arrow, the date, the basemap the page drew
// as an image) and the page downloads as any export — the page names no path — or a PNG of the map as drawn, with the
// same title, legend, scale bar and north arrow, made here (png-sheet.ts) and downloaded from a blob.
import { useState } from 'react';
import { useApi } from '../../context.ts';
import { say, useApp } from '../../store.ts';
import { bytesUrl } from '../../bytes-url.ts';
import { STATE_LEGEND } from '../map/state-marks.ts';
import { cropColour, useRotations } from '../rotations/rotation-store.ts';
import { useLayers } from '../layers/layers-store.ts';
import { download } from '../export/ExportButtons.tsx';
import { mapCanvas, pngBase64 } from './map-image.ts';
import { pngSheet } from './png-sheet.ts';
import { printLegend } from './print-legend.ts';
import { togglePrint, usePrint } from './print-store.ts';
import './print.css';

export function PrintButton() {
  const open = usePrint((s) => s.open);
  const ready = useApp((s) => s.account !== null);
  return <button type="button" className="print-open" aria-label="Print the map" title="Print or export the map as PDF or PNG" aria-pressed={open} disabled={!ready} onClick={togglePrint}>⎙<span className="tool-words"> Print</span></button>;
}

export function PrintPanel() {
  const api = useApi();
  const account = useApp((s) => s.account);
  const farmId = useApp((s) => s.farmId);
  const farms = useApp((s) => s.farms);
  const view = usePrint((s) => s.view);
  const farm = farms.find((f) => f.id === farmId) ?? null;
  const [title, setTitle] = useState(farm?.name ?? 'Map');
  const [paper, setPaper] = useState<'A4' | 'A3'>('A4');
  const [orientation, setOrientation] = useState<'portrait' | 'landscape'>('landscape');
  const [rotation, setRotation] = useState(false);
  const [busy, setBusy] = useState(false);
  const credit = useLayers((s) => s.layers.filter((l) => l.visible).map((l) => l.attribution ?? '').filter(Boolean).join('; '));

  const legend = () => {
    const r = useRotations.getState();
    return printLegend(r.colourBy, STATE_LEGEND, r.legend, (n) => cropColour(r.colours, r.colourBy === 'crop' ? 'crop' : 'family', n), r.bare, r.unkeyed);
  };
  const date = new Date().toISOString().slice(0, 10);
  const pdf = async () => {
    if (!account || !view || busy) return;
    setBusy(true);
    try {
      const base = mapCanvas('basemap');
      const png = base ? pngBase64(base) : null;
      const r = await api.printMap({
        account: account.id, ...(farm ? { farm: farm.id } : {}), title, bbox: view, paper, orientation, colourBy: useRotations.getState().colourBy,
        legend: legend(), ...(png ? { basemap: { png, credit } } : {}), ...(rotation && farm ? { rotation: true } : {}),
      });
      download(bytesUrl(r.path), r.fileName);
      say(`Printed ${r.parcels.toLocaleString('en-US')} parcel${r.parcels === 1 ? '' : 's'} to ${r.fileName}${base && !png ? ' (the basemap left out: its server does not let its tiles be copied)' : ''}.`);
    } catch (err) {
      say(`Not printed: ${err instanceof Error ? err.message : String(err)}`, true);
    } finally {
      setBusy(false);
    }
  };
  const png = () => {
    if (!view) return;
    const map = mapCanvas('all');
    const sheet = map && pngSheet(map, { title, subtitle: `${farm?.name ?? account?.label ?? ''} · ${date}`, legend: legend(), bbox: view });
    const data = sheet && pngBase64(sheet);
    if (!sheet || !data) return void say('Not exported: the map cannot be read as an image (a basemap whose server does not let its tiles be copied); switch it off and try again.', true);
    sheet.toBlob((blob) => {
      if (!blob) return;
      const url = URL.createObjectURL(blob);
      download(url, `${title.replace(/[^\p{L}\p{N} ._-]+/gu, '').trim() || 'map'}.png`);
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      say('Exported the map as PNG.');
    }, 'image/png');
  };

  return (
    <section className="print-panel map-tool" aria-labelledby="print-title">
      <h3 id="print-title">Print the map</h3>
      <label>Title <input value={title} maxLength={200} onChange={(e) => setTitle(e.target.value)} /></label>
      <label>Paper{' '}
        <select value={paper} onChange={(e) => setPaper(e.target.value as 'A4' | 'A3')}><option value="A4">A4</option><option value="A3">A3</option></select>
      </label>
      <label>Orientation{' '}
        <select value={orientation} onChange={(e) => setOrientation(e.target.value as 'portrait' | 'landscape')}><option value="landscape">Landscape</option><option value="portrait">Portrait</option></select>
      </label>
      <label className="check"><input type="checkbox" checked={rotation} disabled={!farm} onChange={(e) => setRotation(e.target.checked)} /> The farm&apos;s rotation table on a second page</label>
      <p className="muted">What the map shows now: its parcels, coloured as the legend says, and the basemap.</p>
      <div className="print-actions">
        <button type="button" aria-disabled={busy || !view || undefined} onClick={() => void pdf()}>PDF</button>
        <button type="button" disabled={!view} onClick={png}>PNG</button>
        <button type="button" onClick={togglePrint}>Close</button>
      </div>
    </section>
  );
}
