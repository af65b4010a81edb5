// What the map says to a screen reader: how to select parcels on it from the keyboard (its description), and the
// parcel those keys selected (a live region). useMapKeys.ts carries the keys out.
import { useMapKeysSaid } from './parcel-list-store.ts';
import './parcel-list.css';

export const MAP_KEYS_ID = 'map-keys';

export function MapKeys() {
  const said = useMapKeysSaid((s) => s.said);
  return (
    <>
      <p id={MAP_KEYS_ID} className="visually-hidden">
        ] and [ select the next and previous parcel in view, Enter opens the selected one; arrow keys pan, + and - zoom.
        Every parcel is also in the list of the farm&apos;s parcels beside the map.
      </p>
      <p className="visually-hidden" role="status" aria-label="Parcel selected on the map">{said}</p>
    </>
  );
}
