// What the map says to a screen reader: how to select parcels on it from the keyboard (its description). The parcel
// those keys selected is said in the app's live region of the selection (parcel-list-store.ts sayOnMap);
// useMapKeys.ts carries the keys out.
import './parcel-list.css';

export const MAP_KEYS_ID = 'map-keys';

export function MapKeys() {
  return (
    <p id={MAP_KEYS_ID} className="visually-hidden">
      ] and [ select the next and previous parcel in view, Enter opens the selected one; arrow keys pan, + and - zoom.
      Every parcel is also in the list of the farm&apos;s parcels beside the map.
    </p>
  );
}
