// A polygon that crosses itself, in the side panel: what the service would say of it, and the ways to fix it instead
// of throwing it away — its vertices dragged on the map (the crossing marked there, useDraftLayer.ts) or retyped in
// the vertex table, or, for a bow tie, split where it crosses into its valid parts, each saved as a parcel.
import type { ParcelFeature } from '../../../core/api.ts';
import type { AppApi } from '../../backend.ts';
import { set, useApp, type Position2 } from '../../store.ts';
import { draftHectares } from '../../preview.ts';
import { hectares } from '../../states.ts';
import { VertexTable } from '../edit/VertexTable.tsx';
import { shapeGeometry } from '../edit/shape.ts';
import { chooseSplit, useParts, useSplit } from './fix-store.ts';
import './draw.css';
import { focusSoon } from '../focus/focus-soon.ts';

/** The parts' names: the parcel's, numbered as an import numbers a MultiPolygon's parts. */
export const partName = (name: string, i: number, n: number): string => `${name} (part ${i + 1} of ${n})`;

/** Saves each part as a parcel of its own, in order. */
export async function createParts(api: AppApi, farm: string, name: string, parts: Position2[][]): Promise<ParcelFeature[]> {
  const created: ParcelFeature[] = [];
  for (const [i, part] of parts.entries()) created.push(await api.createParcel({ farm, name: partName(name, i, parts.length), geometry: shapeGeometry([part]) }));
  return created;
}

export function DraftFix({ problems }: { problems: string[] }) {
  const ring = useApp((s) => s.draft);
  const drawn = useApp((s) => s.drawn);
  const parts = useParts();
  const split = useSplit();
  const areas = (ps: Position2[][]) => ps.map((p) => hectares(draftHectares(p))).join(' and ');
  if (!drawn) return <p role="alert" className="error">{problems.join(' ')} — take the last vertex back (Backspace), or finish it and then fix it.</p>;
  if (split) {
    return (
      <div className="draft-fix" role="status">
        <p>Split where it crosses into {split.length} parcels, {areas(split)}: name them below and save them.</p>
        <button type="button" onClick={() => { chooseSplit(false); focusSoon('.draft-fix .vertices input', true); }}>Keep it whole and move its vertices instead</button>
      </div>
    );
  }
  return (
    <div className="draft-fix">
      <p role="alert" className="error">{problems.join(' ')} — it cannot be saved like this: drag a vertex on the map (where it crosses is marked in red), or retype it under Vertices.</p>
      {parts ? (
        <p>
          Or split it where it crosses into {parts.length} parcels ({areas(parts)}).{' '}
          <button type="button" onClick={() => { chooseSplit(true); focusSoon('form[aria-label="New parcel"] button[type="submit"]', true); }}>Split into {parts.length} parcels</button>
        </p>
      ) : null}
      <VertexTable rings={[ring]} onRings={(rings) => set({ draft: rings[0] ?? [] })} initiallyOpen />
    </div>
  );
}
