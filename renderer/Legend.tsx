// What the map's colours and marks mean (a state's dashes, hatch and symbol as the map draws them), and how much of
// the account the map shows. The parcels are coloured by sync state, or by their active crop's family or name
// (features/rotations/): then the legend lists those shown. In a small window (200 % zoom) it folds to a Legend button
// and its count, so that it covers neither the map's controls nor the map.
import { useEffect, useState } from 'react';
import { NO_CROP_COLOUR } from '../core/crops/family-colours.ts';
import { useApp } from './store.ts';
import { STATE_LEGEND } from './features/map/state-marks.ts';
import { StateSwatch } from './features/map/StateSwatch.tsx';
import { PlantsToggle } from './features/plants/PlantsToggle.tsx';
import { hasFilter, useBrowse } from './features/browse-store.ts';
import { cropColour, setRotations, useRotations, type ColourBy } from './features/rotations/rotation-store.ts';
import { useSmallWindow } from './features/small-window/small-window.ts';
import { CampaignPicker } from './features/rotations/CampaignPicker.tsx';
import './features/small-window/small-window.css';

export function Legend() {
  // Choosing another colouring empties the legend until the map's next answer: the entries of the one left, in the new
  // one's colours, would be wrong for a moment.
  const shown = useApp((s) => s.shown);
  const filtered = useBrowse((s) => hasFilter(s.filter));
  const { colourBy, colours, legend, bare, unkeyed, others, campaign } = useRotations();
  const small = useSmallWindow();
  const [open, setOpen] = useState(!small);
  useEffect(() => setOpen(!small), [small]);
  return (
    <aside className={open ? 'legend' : 'legend folded'} aria-label="Legend">
      {small ? <button type="button" className="legend-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>Legend</button> : null}
      <label className="colour-by">Colour by{' '}
        <select value={colourBy} onChange={(e) => setRotations({ colourBy: e.target.value as ColourBy, legend: [], bare: 0, unkeyed: 0, others: 0 })}>
          <option value="state">Sync state</option>
          <option value="family">Crop family</option>
          <option value="crop">Active crop</option>
        </select>
      </label>
      {colourBy === 'state' ? (
        <ul>
          {STATE_LEGEND.map((s) => (
            <li key={s.state} data-state={s.state}><StateSwatch color={s.color} dash={s.dash} hatch={s.hatch} />{s.symbol ? <span className="state-symbol" aria-hidden="true">{s.symbol}</span> : null}{s.label}</li>
          ))}
        </ul>
      ) : (
        <>
          <CampaignPicker />
          <ul className="crop-legend" aria-label={colourBy === 'family' ? 'Crop families shown' : campaign ? `Crops of ${campaign} shown` : 'Active crops shown'}>
            {legend.map((e) => {
              // The account's colours as they are now (they may come after the parcels were read).
              const colour = cropColour(colours, colourBy, e.name);
              return <li key={e.name}><span className="swatch" data-colour={colour} style={{ background: colour, borderColor: colour }} />{e.name} <span className="muted">({e.parcels})</span></li>;
            })}
            {others ? <li><span className="swatch" />Others <span className="muted">({others})</span></li> : null}
            {unkeyed ? <li><span className="swatch" style={{ background: `${NO_CROP_COLOUR}59`, borderColor: NO_CROP_COLOUR }} />{colourBy === 'family' ? 'Crop with no family' : 'Crop with no name'} <span className="muted">({unkeyed})</span></li> : null}
            {bare ? <li><span className="swatch" style={{ background: `${NO_CROP_COLOUR}59`, borderColor: NO_CROP_COLOUR }} />{campaign ? `No crop in ${campaign}` : 'No active crop'} <span className="muted">({bare})</span></li> : null}
          </ul>
          <p className="muted note">Outlines: sync state</p>
        </>
      )}
      <PlantsToggle />
      {/* Not a live region: it changes at every move of the map (the selection is announced instead, features/focus/announce.ts). */}
      <p className="shown">
        {shown.all ? `All parcels in view shown (over ${shown.count.toLocaleString('en-US')})` : `${shown.count} parcel${shown.count === 1 ? '' : 's'} shown`}{shown.truncated ? ' (zoom in to see all)' : ''}{filtered ? ', filtered by metadata' : ''}
      </p>
    </aside>
  );
}
