// The parcel's crop_type metadata and its active crop naming different crops (Chickpea against Lentil): said in the
// parcel's panel, with either one updated from the other in one click (active-crop.ts cropTypeMismatch).
import type { ParcelFeature, RotationCrop } from '../../../core/api.ts';
import { useApi } from '../../context.ts';
import { say } from '../../store.ts';
import { CROP_TYPE, cropTypeMismatch } from './active-crop.ts';
import { focusSoon, savedParcel } from '../focus/focus-soon.ts';

export function CropTypeMismatch({ parcel, crops }: { parcel: ParcelFeature; crops: readonly RotationCrop[] }) {
  const api = useApi();
  const m = cropTypeMismatch(parcel.properties.metadata, crops);
  if (!m) return null;
  const name = parcel.properties.name;
  // Settled, this offer goes with the button pressed: the focus goes to the parcel's heading, not the page's body.
  const done = (p: Promise<unknown>, words: string) => p.then(() => {
    say(`${words}: it is sent at the next sync.`);
    focusSoon(savedParcel(parcel.id));
  }, (err: unknown) => say(`Not saved: ${err instanceof Error ? err.message : String(err)}`, true));
  const metadata: ParcelFeature['properties']['metadata'] = { ...parcel.properties.metadata, [CROP_TYPE]: m.crop.name };
  return (
    <div className="crop-mismatch" role="group" aria-label="crop_type and active crop differ">
      <p className="warning">
        ⚠ The parcel&apos;s <code>{CROP_TYPE}</code> says <strong>{m.cropType}</strong>, but its active crop is <strong>{m.crop.name}</strong>
        {m.crop.campaign ? ` (${m.crop.campaign})` : ''}.
      </p>
      <div className="buttons">
        <button type="button" onClick={() => void done(api.updateParcel({ id: parcel.id, metadata }), `Set ${CROP_TYPE} of ${name} to ${m.crop.name}`)}>
          Set {CROP_TYPE} to {m.crop.name}
        </button>
        <button type="button" onClick={() => void done(api.updateCrop({ id: m.crop.id, name: m.cropType }), `Renamed the active crop of ${name} to ${m.cropType}`)}>
          Rename the crop to {m.cropType}
        </button>
      </div>
    </div>
  );
}
