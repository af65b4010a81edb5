// A sync state's swatch in the legend: its colour with the marks the map draws (state-marks.ts), the outline's
// dashes and the hatch, so the legend reads the same without colour.
import type { StateMark } from './state-marks.ts';

const SIZE = 16;

/** The hatch's lines across the swatch, as the map's 8-pixel tile repeats them. */
function hatchPath(hatch: NonNullable<StateMark['hatch']>): string {
  if (hatch === 'horizontal') return [4, 8, 12].map((y) => `M0 ${y}H${SIZE}`).join('');
  const diagonal = [-8, 0, 8, 16].map((o) => `M${o} ${SIZE}L${o + SIZE} 0`).join('');
  return hatch === 'cross' ? diagonal + [-8, 0, 8, 16].map((o) => `M${o} 0L${o + SIZE} ${SIZE}`).join('') : diagonal;
}

export function StateSwatch({ color, dash, hatch }: { color: string } & Pick<StateMark, 'dash' | 'hatch'>) {
  return (
    <svg className="state-swatch" width={SIZE} height={SIZE} viewBox={`0 0 ${SIZE} ${SIZE}`} aria-hidden="true" data-dash={dash?.join(' ') ?? 'solid'} data-hatch={hatch ?? 'none'}>
      <rect x="1" y="1" width={SIZE - 2} height={SIZE - 2} fill={color} fillOpacity={0.2} />
      {hatch ? <path d={hatchPath(hatch)} stroke={color} strokeWidth={1.5} /> : null}
      <rect x="1" y="1" width={SIZE - 2} height={SIZE - 2} fill="none" stroke={color} strokeWidth={2} strokeDasharray={dash?.join(' ')} />
    </svg>
  );
}
