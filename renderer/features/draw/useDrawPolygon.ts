// Drawing a polygon (D): OpenLayers' Draw, snapping to the parcels shown. Click vertices, or type them in the panel;
// Enter (or a click on the last vertex, a double-click) finishes, Esc cancels, Backspace or Ctrl+Z takes the last
// vertex back. The sketch's [lon, lat] ring goes to the store as it changes, for the panel's live hectares; once
// finished it waits there (`drawn`) for its name and farm. Added in effects, removed in their cleanup.
import { useEffect, type RefObject } from 'react';
import type OlMap from 'ol/Map.js';
import type VectorSource from 'ol/source/Vector.js';
import Draw from 'ol/interaction/Draw.js';
import type Polygon from 'ol/geom/Polygon.js';
import { unByKey } from 'ol/Observable.js';
import type { EventsKey } from 'ol/events.js';
import { set, useApp } from '../../store.ts';
import { behindPanel } from '../../keymap.ts';
import { isField, ownsEnter } from '../../keys.ts';
import { parcelSnap } from '../map/snap.ts';
import { draftStyle } from './draft-style.ts';
import { drawKey, escapeDiscards } from './draw-keys.ts';
import { TypedVertices, outerRing, showCoordinate } from './typed-vertices.ts';

export function useDrawPolygon(map: RefObject<OlMap | null>, parcels: VectorSource): void {
  const mode = useApp((s) => s.mode);
  const drawn = useApp((s) => s.drawn);

  // While drawing.
  useEffect(() => {
    const m = map.current;
    if (!m || mode !== 'draw' || drawn) return;
    const draw = new Draw({ type: 'Polygon', style: draftStyle });
    const typed = new TypedVertices();
    let sketch: EventsKey | null = null;
    draw.on('drawstart', (e) => {
      const g = e.feature.getGeometry() as Polygon;
      sketch = g.on('change', () => set({ draft: outerRing(g, typed) }));
    });
    draw.on('drawend', (e) => {
      if (sketch) unByKey(sketch);
      set({ draft: outerRing(e.feature.getGeometry() as Polygon, typed), drawn: true });
    });
    draw.on('drawabort', () => set({ draft: [] }));
    const onKey = (e: KeyboardEvent) => {
      const action = drawKey(e, { inField: isField(e.target) || behindPanel(), ownsEnter: ownsEnter(e.target), ring: useApp.getState().draft.length });
      if (!action) return;
      e.preventDefault();
      if (action === 'finish') draw.finishDrawing();
      else if (action === 'abort') { draw.abortDrawing(); set({ mode: 'browse', draft: [] }); }
      else draw.removeLastPoint();
    };
    // Vertices typed in the panel (features/coordinates/VertexEntry.tsx) go where clicks go.
    const commands = useApp.subscribe((s, prev) => {
      const c = s.draftCommand;
      if (!c || c === prev.draftCommand) return;
      if (c.op === 'add') {
        const at = typed.place(c.pos);
        // Appended twice, then the last taken back: Draw's appendCoordinates leaves the vertex that follows the pointer
        // on an earlier vertex when the new one lies on the previous one's spot (its snap to finish, with no pointer);
        // removeLastPoint puts that vertex back on the one typed.
        draw.appendCoordinates([at, at]);
        draw.removeLastPoint();
        showCoordinate(m, at);
      }
      else if (c.op === 'undo') draw.removeLastPoint();
      else if (s.draft.length >= 4) draw.finishDrawing();
    });
    // Snap after Draw: it moves the pointer onto a neighbouring parcel's vertex or edge before Draw reads it.
    const { snap, dispose } = parcelSnap(parcels);
    m.addInteraction(draw);
    m.addInteraction(snap);
    document.addEventListener('keydown', onKey);
    return () => {
      commands();
      document.removeEventListener('keydown', onKey);
      if (sketch) unByKey(sketch);
      dispose();
      m.removeInteraction(snap);
      m.removeInteraction(draw);
    };
  }, [map, mode, drawn, parcels]);

  // Finished and not saved yet: Esc discards it, once out of the name field.
  useEffect(() => {
    if (mode !== 'draw' || !drawn) return;
    document.addEventListener('keydown', escapeDiscards);
    return () => document.removeEventListener('keydown', escapeDiscards);
  }, [mode, drawn]);
}
