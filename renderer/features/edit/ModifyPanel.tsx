// The side panel while a parcel's shape is modified: its live geodesic hectares and the service's problems, as Draw
// shows them, red and Save disabled above the account's limit; Save (Enter) and Cancel (Esc).
import { useApi } from '../../context.ts';
import { useApp } from '../../store.ts';
import { hectares } from '../../states.ts';
import { useEdit } from './edit-store.ts';
import { cancelModify, saveModify } from './actions.ts';
import { sameShape, shapeHectares, shapeProblems } from './shape.ts';
import { VertexTable } from './VertexTable.tsx';
import { AddAtPosition } from '../position/AddAtPosition.tsx';

export function ModifyPanel() {
  const api = useApi();
  const editing = useEdit((s) => s.editing);
  const rings = useEdit((s) => s.rings);
  const saving = useEdit((s) => s.saving);
  const limit = useApp((s) => s.account?.parcelLimit ?? Infinity);
  if (!editing) return <h2 id="panel-title">Modify</h2>;
  const ha = shapeHectares(rings);
  const before = shapeHectares(editing.original);
  const over = ha > limit;
  const problems = shapeProblems(rings);
  const changed = !sameShape(rings, editing.original);
  return (
    <>
      <h2 id="panel-title">Modifying {editing.name}</h2>
      <p className={over ? 'area error' : 'area'}>
        Area <output aria-label="Modified area" data-field="modify-hectares">{hectares(ha)}</output>
        <span className="muted"> (was {hectares(before)})</span>
        {over ? <span role="alert"> — above this account&apos;s limit of {hectares(limit)}: it cannot be saved.</span> : null}
      </p>
      {problems.length ? <p role="alert" className="error">{problems.join(' ')} — it cannot be saved: move the vertex back, or Esc to cancel.</p> : null}
      {editing.point ? (
        <p className="muted">A hectare point: its square is edited as a polygon. Saved, it becomes a drawn polygon, its area measured from the shape as the service measures it.</p>
      ) : null}
      <p className="muted">Drag a vertex to move it, or an edge to add one (Alt+click removes a vertex); drag inside the parcel to move it whole. Vertices snap to the neighbouring parcels. Or type them under Vertices (Enter there takes the vertex). Enter outside a field saves, Esc cancels.</p>
      <VertexTable />
      <AddAtPosition />
      <div className="buttons">
        <button type="button" aria-keyshortcuts="Enter" title="Save the shape (Enter)" disabled={over || problems.length > 0 || !changed || saving} onClick={() => void saveModify(api)}>Save shape</button>
        <button type="button" aria-keyshortcuts="Escape" title="Cancel: the parcel keeps its shape (Esc)" onClick={cancelModify}>Cancel</button>
      </div>
    </>
  );
}
