// The campaign the map is coloured by, while colouring by crop family or crop (the legend's): each parcel's active
// crop (the default), or its crop of a chosen campaign, past or planned (mapCampaigns: the account's campaigns, read
// again with every change, so a campaign just planned is offered at once).
import { useEffect, useState } from 'react';
import { useApi } from '../../context.ts';
import { useApp } from '../../store.ts';
import { setRotations, useRotations } from './rotation-store.ts';

export function CampaignPicker() {
  const api = useApi();
  const account = useApp((s) => s.account?.id);
  const version = useApp((s) => s.version);
  const campaign = useRotations((s) => s.campaign);
  const [campaigns, setCampaigns] = useState<{ campaign: string; planned: boolean }[]>([]);
  useEffect(() => {
    let live = true;
    if (account) api.mapCampaigns({ account }).then((c) => { if (live) setCampaigns(c); }, () => {});
    return () => { live = false; };
  }, [api, account, version]);
  // A campaign no crop has any more (its crops deleted, another account shown) gives way to the active crops.
  useEffect(() => {
    if (campaign !== null && campaigns.length && !campaigns.some((c) => c.campaign === campaign)) setRotations({ campaign: null });
  }, [campaign, campaigns]);
  return (
    <label className="colour-by">Campaign{' '}
      <select value={campaign ?? ''} onChange={(e) => setRotations({ campaign: e.target.value || null, legend: [], bare: 0, unkeyed: 0, others: 0 })}>
        <option value="">Active crops (now)</option>
        {campaigns.map((c) => <option key={c.campaign} value={c.campaign}>{c.campaign}{c.planned ? ' (planned)' : ''}</option>)}
      </select>
    </label>
  );
}
