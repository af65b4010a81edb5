// A farm's campaign summary, past and planned: area by family as a bar chart (SVG: one bar per campaign, a segment
// per family in its colour) and by crop and family as a table, from core/crops/campaign-summary.ts on the table's
// grid. Exported through the host like every download (planDownload): the summary as CSV, the plan with its rule
// set and violations as JSON; the page never names a path.
import { useState } from 'react';
import type { FarmRotation } from '../../../core/api.ts';
import { campaignSummary, type SummaryRow } from '../../../core/crops/campaign-summary.ts';
import { useApi } from '../../context.ts';
import { say } from '../../store.ts';
import { bytesUrl } from '../../bytes-url.ts';
import { cropColour, type CropColours } from './rotation-store.ts';
import { planParcels } from './plan-model.ts';

const ha = (x: number) => x.toLocaleString('en-US', { maximumFractionDigits: 2, minimumFractionDigits: 2 });
const pct = (x: number) => `${(x * 100).toLocaleString('en-US', { maximumFractionDigits: 1 })} %`;

function download(url: string, fileName: string): void {
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
}

const BAR = 22;
const LABEL = 120;
const WIDTH = 560;

function Chart({ rows, colours }: { rows: SummaryRow[]; colours: CropColours }) {
  const campaigns = [...new Set(rows.map((r) => r.campaign))];
  const families = rows.filter((r) => r.by === 'family');
  const total = (c: string) => families.filter((r) => r.campaign === c).reduce((s, r) => s + r.hectares, 0);
  const max = Math.max(...campaigns.map(total), 1e-9);
  const scale = (WIDTH - LABEL - 70) / max;
  return (
    <svg className="summary-chart" role="img" aria-label="Area by family, campaign by campaign" width={WIDTH} height={campaigns.length * (BAR + 8) + 8} viewBox={`0 0 ${WIDTH} ${campaigns.length * (BAR + 8) + 8}`}>
      {campaigns.map((c, i) => {
        const y = 8 + i * (BAR + 8);
        let x = LABEL;
        const planned = families.find((r) => r.campaign === c)?.planned ?? false;
        return (
          <g key={c}>
            <text x={LABEL - 6} y={y + BAR * 0.7} textAnchor="end" fontSize="12">{c}{planned ? ' (plan)' : ''}</text>
            {families.filter((r) => r.campaign === c).map((r) => {
              const w = r.hectares * scale;
              const rect = <rect key={r.name} x={x} y={y} width={Math.max(w, 0.5)} height={BAR} fill={cropColour(colours, 'family', r.name === 'No family' ? null : r.name)} stroke="#fff" strokeDasharray={planned ? '4 2' : undefined}><title>{`${c} · ${r.name}: ${ha(r.hectares)} ha (${pct(r.share)})`}</title></rect>;
              x += w;
              return rect;
            })}
            <text x={x + 6} y={y + BAR * 0.7} fontSize="12">{ha(total(c))} ha</text>
          </g>
        );
      })}
    </svg>
  );
}

export function CampaignSummary({ farm, grid, colours }: { farm: string; grid: FarmRotation; colours: CropColours }) {
  const api = useApi();
  const [busy, setBusy] = useState(false);
  const rows = campaignSummary(planParcels(grid), grid.current);
  const exportAs = (format: 'csv' | 'json') => {
    if (busy) return;
    setBusy(true);
    api.planDownload({ farm, format }).then((r) => {
      download(bytesUrl(r.path), r.fileName);
      say(`Exported ${format === 'csv' ? 'the campaign summary' : 'the plan, its rule set and violations'} to ${r.fileName}.`);
    }, (err: unknown) => say(`Not exported: ${err instanceof Error ? err.message : String(err)}`, true)).finally(() => setBusy(false));
  };
  return (
    <section className="campaign-summary" aria-label="Campaign summary">
      <div className="summary-buttons" role="group" aria-label="Export the plan">
        <button type="button" aria-disabled={busy || undefined} onClick={() => exportAs('csv')}>Export the summary as CSV</button>
        <button type="button" aria-disabled={busy || undefined} onClick={() => exportAs('json')}>Export the plan as JSON</button>
      </div>
      {rows.length === 0 ? <p className="muted">No crops on this farm yet: plan some in the table, and their areas show here.</p> : (
        <>
          <Chart rows={rows} colours={colours} />
          <ul className="family-key" aria-label="Families in the chart">
            {[...new Set(rows.filter((r) => r.by === 'family').map((r) => r.name))].sort().map((f) => (
              <li key={f}><span className="swatch" style={{ background: cropColour(colours, 'family', f === 'No family' ? null : f) }} />{f}</li>
            ))}
          </ul>
          <div className="table-wrap">
            <table className="summary-table">
              <thead><tr><th scope="col">Campaign</th><th scope="col">By</th><th scope="col">Name</th><th scope="col">Hectares</th><th scope="col">Share</th></tr></thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={`${r.campaign}|${r.by}|${r.name}`} className={r.planned ? 'planned' : undefined}>
                    <td>{r.campaign}{r.planned ? ' (planned)' : ''}</td><td>{r.by === 'crop' ? 'Crop' : 'Family'}</td><td>{r.name}</td><td className="num">{ha(r.hectares)}</td><td className="num">{pct(r.share)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
