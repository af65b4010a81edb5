// The panel's "Zoom to parcel" button (Z).
import { useApi } from '../../context.ts';
import { zoomToParcel } from './zoom.ts';
import { keyHint, useKeyName } from '../../keymap.ts';

export function ZoomToParcel({ id }: { id: string }) {
  const api = useApi();
  const key = useKeyName('zoom');
  return (
    <button type="button" className="zoom-to" aria-label="Zoom to parcel" aria-keyshortcuts={key ?? undefined} title={`Zoom to parcel${keyHint(key)}`} onClick={() => void zoomToParcel(api, id)}>
      ⤢ Zoom to parcel
    </button>
  );
}
