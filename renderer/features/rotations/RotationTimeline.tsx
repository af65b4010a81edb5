// The selected parcel's crop rotation, newest first: campaign, crop and variety, family (its colour), sowing →
// closure, harvested quantity, active or past, sync state, and a warning where a family follows itself. Crops are
// added, changed and deleted here, through the backend's outbox (sent once the parcel is on the service) and its
// edit history (Undo takes them back).
import { useEffect, useState } from 'react';
import type { ParcelFeature, RotationCrop } from '../../../core/api.ts';
import { useApi } from '../../context.ts';
import { say, useApp } from '../../store.ts';
import { stateColor, stateLabel } from '../../states.ts';
import { CropForm, type Closing } from './CropForm.tsx';
import { CropTypeMismatch } from './CropTypeMismatch.tsx';
import { draftOf, emptyCrop, nextCampaign, type CropArgs, type FamilyChoice } from './crop-form.ts';
import { inkOn } from '../../../core/crops/family-colours.ts';
import { currentCampaignYear, isPlannedCampaign } from '../../../core/crops/campaign-summary.ts';
import { cropColour, useRotations } from './rotation-store.ts';
import { focusSoon } from '../focus/focus-soon.ts';
import './rotations.css';

const when = (c: RotationCrop) => (c.sowing || c.closure ? `${c.sowing ?? '…'} → ${c.closure ?? '…'}` : null);

function CropRow({ crop, planned, onEdit, onDelete }: { crop: RotationCrop; planned: boolean; onEdit(): void; onDelete(): void }) {
  const [confirming, setConfirming] = useState(false);
  const family = crop.family?.name ?? null;
  const colour = cropColour(useRotations((s) => s.colours), 'family', family);
  const title = [crop.name ?? 'A crop', crop.variety].filter(Boolean).join(' · ');
  return (
    <li className={crop.active ? 'crop active' : 'crop'} data-crop={crop.id} style={{ borderLeftColor: colour }}>
      <div className="crop-head">
        <strong>{crop.campaign ?? 'No campaign'}</strong>
        <span className="crop-name">{title}</span>
        <span className="badge">{crop.active ? 'Active' : planned ? 'Planned' : 'Past'}</span>
      </div>
      <div className="crop-facts">
        {family ? <span className="family" style={{ background: colour, color: inkOn(colour) }}>{family}</span> : <span className="muted">No family</span>}
        {when(crop) ? <span>{when(crop)}</span> : null}
        {crop.harvestedQty !== null ? <span>harvested {crop.harvestedQty}</span> : null}
        {crop.area !== null ? <span>{crop.area} ha</span> : null}
        <span title={crop.reason ?? undefined}><span className="dot" style={{ background: stateColor(crop.state) }} />{stateLabel(crop.state)}</span>
      </div>
      {crop.reason && (crop.state === 'rejected' || crop.state === 'conflict') ? <p className="error">{crop.reason}</p> : null}
      {crop.warnings.map((w) => <p key={w.after} className="warning" role="note">⚠ {w.message}</p>)}
      <div className="buttons">
        {confirming ? (
          <>
            <span>Delete this crop?</span>
            <button type="button" className="danger" autoFocus onClick={() => { setConfirming(false); onDelete(); }}>Delete crop</button>
            <button type="button" onClick={() => setConfirming(false)}>Keep it</button>
          </>
        ) : (
          <>
            <button type="button" className="crop-edit" aria-label={`Edit ${crop.campaign ?? ''} ${crop.name ?? 'crop'}`.replace(/\s+/g, ' ')} onClick={onEdit}>Edit</button>
            <button type="button" aria-label={`Delete ${crop.campaign ?? ''} ${crop.name ?? 'crop'}`.replace(/\s+/g, ' ')} onClick={() => setConfirming(true)}>Delete</button>
          </>
        )}
      </div>
    </li>
  );
}

export function RotationTimeline({ parcel }: { parcel: ParcelFeature }) {
  const api = useApi();
  const version = useApp((s) => s.version);
  const account = useApp((s) => s.account?.id);
  const [crops, setCrops] = useState<RotationCrop[] | null>(null);
  const [families, setFamilies] = useState<FamilyChoice[]>([]);
  /** 'new', a crop's id, or nothing being edited. */
  const [editing, setEditing] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    api.rotation({ parcel: parcel.id }).then((c) => { if (live) setCrops(c); }, () => { if (live) setCrops([]); });
    return () => { live = false; };
  }, [api, parcel.id, version]);
  useEffect(() => {
    let live = true;
    if (account) api.cropFamilies({ account }).then((f) => { if (live) setFamilies(f); }, () => {});
    return () => { live = false; };
  }, [api, account, version]);

  // The form goes once saved: the focus goes to the saved crop's Edit button (its row), never the page's body.
  const saved = (what: string, id: string) => { setEditing(null); say(`${what}: it is sent at the next sync.`); focusSoon(`[data-crop="${id}"] .crop-edit`, true); };
  // The crop is saved first (the backend checks it whole), then the crops it replaces are closed.
  const close = async (list: Closing) => { for (const c of list) await api.updateCrop({ id: c.id, active: false, closure: c.closure }); };
  const closed = (list: Closing) => (list.length ? `, closed ${list.map((c) => c.label).join(', ')}` : '');
  const create = async (c: CropArgs, list: Closing) => {
    const r = await api.createCrop({ parcel: parcel.id, ...c });
    await close(list);
    saved(`Added ${r.name ?? 'the crop'} to ${parcel.properties.name}${closed(list)}`, r.id);
  };
  const update = (id: string) => async (c: CropArgs, list: Closing) => {
    const r = await api.updateCrop({ id, ...c });
    await close(list);
    saved(`Saved ${r.name ?? 'the crop'}${closed(list)}`, r.id);
  };
  const cancel = (id: string | null) => { setEditing(null); focusSoon(id ? `[data-crop="${id}"] .crop-edit` : '.rotation .add-crop', true); };
  const remove = (c: RotationCrop) => {
    api.deleteCrop({ id: c.id }).then(() => { say(`Deleted ${c.name ?? 'the crop'} (${c.campaign ?? 'no campaign'}): Undo (Ctrl+Z) brings it back.`); focusSoon('.rotation .add-crop', true); },
      (err: unknown) => say(`Not deleted: ${err instanceof Error ? err.message : String(err)}`, true));
  };
  // A crop of a campaign after the parcel's current one (its newest with a crop active or sown) is planned, not past:
  // the rotation table's rule (core/crops/campaign-summary.ts), on this parcel's crops.
  const current = currentCampaignYear(crops ?? [], new Date().toISOString().slice(0, 10));
  // A new crop starts in the campaign after the newest one's, the season usually being added.
  const next = crops?.[0]?.campaign ? nextCampaign(crops[0].campaign) : '';

  return (
    <section className="rotation" aria-labelledby="rotation-title">
      <h3 id="rotation-title">Crop rotation</h3>
      {crops ? <CropTypeMismatch parcel={parcel} crops={crops} /> : null}
      {crops === null ? <p className="muted">Reading…</p> : null}
      {crops?.length === 0 && editing !== 'new' ? <p className="muted">No crops recorded on this parcel.</p> : null}
      {editing === 'new' ? <CropForm title="New crop" initial={emptyCrop(next)} families={families} parcelHectares={parcel.properties.hectares} others={crops ?? []} save={create} cancel={() => cancel(null)} />
        : <button type="button" className="add-crop" onClick={() => setEditing('new')}>+ Add crop</button>}
      <ol className="crops">
        {(crops ?? []).map((c) => (editing === c.id
          ? <li key={c.id}><CropForm title={`Edit ${c.name ?? 'crop'}`} initial={draftOf(c)} families={families} parcelHectares={parcel.properties.hectares} others={(crops ?? []).filter((o) => o.id !== c.id)} save={update(c.id)} cancel={() => cancel(c.id)} /></li>
          : <CropRow key={c.id} crop={c} planned={!c.active && c.sowing === null && isPlannedCampaign(c.campaign, current)} onEdit={() => setEditing(c.id)} onDelete={() => remove(c)} />))}
      </ol>
    </section>
  );
}
