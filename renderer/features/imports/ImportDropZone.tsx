// Drag a file onto the window: the map shows where to drop it, and a drop previews it (import-actions.ts). The
// listeners are the document's, so a file dropped anywhere in the window is taken rather than opened by the browser
// in place of the app; only drags that carry files count (a dragged text or map feature does not).
import { useEffect } from 'react';
import { useApi } from '../../context.ts';
import { say } from '../../store.ts';
import { previewFile } from './import-actions.ts';
import { setImports, useImports } from './import-store.ts';

const carriesFiles = (e: DragEvent) => e.dataTransfer?.types.includes('Files') === true;

export function ImportDropZone() {
  const api = useApi();
  const dragging = useImports((s) => s.dragging);

  useEffect(() => {
    // dragenter and dragleave come for every element crossed: the window is left when as many left as entered.
    let depth = 0;
    const enter = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      e.preventDefault();
      depth++;
      setImports({ dragging: true });
    };
    const over = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      e.preventDefault(); // else the drop is the browser's
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    };
    const leave = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      depth = Math.max(0, depth - 1);
      if (depth === 0) setImports({ dragging: false });
    };
    const drop = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      e.preventDefault();
      depth = 0;
      setImports({ dragging: false });
      const files = [...(e.dataTransfer?.files ?? [])];
      if (!files[0]) return;
      if (files.length > 1) say(`One file at a time: ${files[0].name} is previewed, the other ${files.length - 1} not.`);
      void previewFile(api, files[0]);
    };
    document.addEventListener('dragenter', enter);
    document.addEventListener('dragover', over);
    document.addEventListener('dragleave', leave);
    document.addEventListener('drop', drop);
    return () => {
      document.removeEventListener('dragenter', enter);
      document.removeEventListener('dragover', over);
      document.removeEventListener('dragleave', leave);
      document.removeEventListener('drop', drop);
    };
  }, [api]);

  if (!dragging) return null;
  return (
    <div className="import-drop" role="status" aria-label="Drop to import">
      <p><strong>Drop the file to preview its import</strong><br />GeoJSON (.geojson, .json), KML (.kml, .kmz) or a zipped Shapefile (.zip)</p>
    </div>
  );
}
