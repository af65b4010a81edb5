// Zoom to a parcel (by id: its geometry from the backend) or to a farm (the map's existing zoomTo).
import type { AppApi } from '../../backend.ts';
import { say, set, useApp } from '../../store.ts';
import { fitMap } from '../browse-store.ts';
import { boxOf } from './bbox.ts';

export async function zoomToParcel(api: AppApi, id: string): Promise<void> {
  try {
    const p = await api.parcel({ id });
    const box = boxOf([p.geometry]);
    if (box) fitMap(box);
  } catch (err) {
    say(`Cannot zoom to the parcel: ${err instanceof Error ? err.message : String(err)}. Choose it again in the map or the search.`, true);
  }
}

export const zoomToFarm = (farm: string) => set((s) => ({ farmId: farm, zoomTo: { farm, nonce: (s.zoomTo?.nonce ?? 0) + 1 } }));

/** Z: the selected parcel, or without one the current farm. */
export async function zoomToSelection(api: AppApi): Promise<void> {
  const { selectedId, farmId } = useApp.getState();
  if (selectedId) await zoomToParcel(api, selectedId);
  else if (farmId) zoomToFarm(farmId);
}
