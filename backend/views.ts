// Mirror rows as the app's API shows them (core/api.ts): plain JSON, geometry as GeoJSON, each item with where it
// stands with the service.
import type { Mirror } from '../db/mirror.ts';
import type { ParcelHit } from '../db/reader.ts';
import type { FarmRow } from '../db/types.ts';
import { statusReport } from '../sync/status.ts';
import { RpcError } from '../core/rpc.ts';
import type { AccountSummary, FarmSummary, ParcelFeature, SyncState } from '../core/api.ts';
import { ApiErrorCode } from '../core/api-codes.ts';

export function accountOf(m: Mirror, id: string) {
  const a = m.read.account(id);
  if (!a) throw new RpcError(ApiErrorCode.noAccount, `Account ${id} is not connected on this computer`);
  return a;
}

/** A live farm of the mirror, or notFound. */
export function farmOf(m: Mirror, localId: string) {
  const f = m.read.farm(localId);
  if (!f || f.deleted) throw new RpcError(ApiErrorCode.notFound, `No farm ${localId}`);
  return f;
}

export function accountSummary(m: Mirror, id: string): AccountSummary {
  const a = accountOf(m, id);
  const { counts, blocked } = statusReport(m, a.id);
  return { id: a.id, label: a.label, service: a.service_url, method: a.mode, lastPull: a.last_pull, parcelLimit: m.write.parcelLimit(a.id), counts, blocked: blocked[0] ?? null };
}

export function farmSummary(m: Mirror, localId: string): FarmSummary {
  const f = farmOf(m, localId);
  return summaryOf(f, m.read.farmTotals(localId), m.read.syncStates('farm', [localId]).get(localId)!.state);
}

/** An account's farms as farmSummary gives each, read in three statements rather than two per farm. */
export function farmSummaries(m: Mirror, account: string): FarmSummary[] {
  const farms = m.read.farms(account);
  const totals = m.read.accountFarmTotals(account);
  const states = m.read.syncStates('farm', farms.map((f) => f.local_id));
  return farms.map((f) => summaryOf(f, totals.get(f.local_id) ?? { parcels: 0, hectares: 0 }, states.get(f.local_id)!.state));
}

function summaryOf(f: FarmRow, { parcels, hectares }: { parcels: number; hectares: number }, s: SyncState): FarmSummary {
  // A farm the service does not have yet is pending even with no op left (its create refused, say).
  const state: SyncState = s === 'synced' && f.server_id === null ? 'pending' : s;
  return { id: f.local_id, account: f.account_id, serverId: f.server_id, name: f.name, parcels, hectares, state };
}

export function parcelFeatures(m: Mirror, hits: readonly ParcelHit[]): ParcelFeature[] {
  const states = m.read.parcelStates(hits.map((h) => h.local_id));
  return hits.map((h) => {
    const s = states.get(h.local_id)!;
    return {
      type: 'Feature', id: h.local_id, geometry: JSON.parse(h.geometry) as ParcelFeature['geometry'],
      properties: {
        farm: h.farm_local_id, name: h.name, hectares: h.hectares, serverId: h.server_id, state: s.state, reason: s.reason,
        point: h.point ? (JSON.parse(h.point) as [number, number]) : null, metadata: JSON.parse(h.metadata) as ParcelFeature['properties']['metadata'],
      },
    };
  });
}

export function parcelFeature(m: Mirror, localId: string): ParcelFeature {
  const p = m.read.parcel(localId);
  if (!p || p.deleted) throw new RpcError(ApiErrorCode.notFound, `No parcel ${localId}`);
  return parcelFeatures(m, [p])[0]!;
}
