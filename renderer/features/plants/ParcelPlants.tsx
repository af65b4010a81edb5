// The selected parcel's plants (trees detected by the service, pulled into the mirror): how many, and a list to search
// by id or by the detection's info; choosing one shows the plants on the map, zooms to it and opens its popup.
import { useEffect, useState } from 'react';
import type { ParcelFeature, PlantFeature } from '../../../core/api.ts';
import { useApi } from '../../context.ts';
import { useApp } from '../../store.ts';
import { fitMap, useBrowse } from '../browse-store.ts';
import { plantMatches, squareMetres } from './plant-view.ts';

/** The list shows at most this many of the plants that match. */
const SHOWN = 200;
/** The plants read for the list: a parcel's orchard rarely has more; the count is always the whole. */
const READ = 5000;
/** Half the side of the box the map fits around a chosen plant, in degrees (about 20 m). */
const AROUND = 0.0002;

export function ParcelPlants({ parcel }: { parcel: ParcelFeature }) {
  const api = useApi();
  const version = useApp((s) => s.version);
  const [plants, setPlants] = useState<{ count: number; truncated: boolean; features: PlantFeature[] } | null>(null);
  const [text, setText] = useState('');
  const [open, setOpen] = useState(false);
  useEffect(() => {
    let live = true;
    api.plants({ parcel: parcel.id, limit: READ }).then((p) => { if (live) setPlants(p); }, () => { if (live) setPlants(null); });
    return () => { live = false; };
  }, [api, parcel.id, version]);
  if (!plants || plants.count === 0) return null;
  const matching = plants.features.filter((p) => plantMatches({ id: p.id, info: p.properties.info }, text));
  const choose = (p: PlantFeature) => {
    const [lon, lat] = p.geometry.coordinates as [number, number];
    useBrowse.setState({ showPlants: true, plant: { id: p.id, at: [lon, lat], area: p.properties.area, info: p.properties.info, parcel: p.properties.parcel } });
    fitMap([lon - AROUND, lat - AROUND, lon + AROUND, lat + AROUND]);
  };
  return (
    <section className="parcel-plants" aria-labelledby="plants-title">
      <h3 id="plants-title">Plants <span className="muted" data-field="plant-count">{plants.count.toLocaleString('en-US')}</span></h3>
      <details open={open} onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
        <summary>List and search</summary>
        {open ? (
          <>
            <input type="search" aria-label="Search plants" placeholder="Id or info, such as almond" value={text} onChange={(e) => setText(e.target.value)} />
            <p className="muted">
              {matching.length.toLocaleString('en-US')} of {plants.truncated ? `the first ${plants.features.length.toLocaleString('en-US')}` : plants.count.toLocaleString('en-US')}
              {matching.length > SHOWN ? `, the first ${SHOWN} listed` : ''}
            </p>
            <ul className="plant-list">
              {matching.slice(0, SHOWN).map((p) => (
                <li key={p.id}><button type="button" onClick={() => choose(p)}>Plant {p.id} <span className="muted">· {squareMetres(p.properties.area)}</span></button></li>
              ))}
            </ul>
          </>
        ) : null}
      </details>
    </section>
  );
}
