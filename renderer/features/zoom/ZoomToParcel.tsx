// The panel's "Zoom to parcel" button (Z).
import { useApi } from '../../context.ts';
import { zoomToParcel } from './zoom.ts';

export function ZoomToParcel({ id }: { id: string }) {
  const api = useApi();
  return (
    <button type="button" className="zoom-to" aria-label="Zoom to parcel" aria-keyshortcuts="Z" title="Zoom to parcel (Z)" onClick={() => void zoomToParcel(api, id)}>
      ⤢ Zoom to parcel
    </button>
  );
}
