// The crop view's plain data: what the map's parcels are coloured by, the colour of each family and crop, the crops or
// families the map shows then (for the legend), and the farm whose rotation table is open. The map's features and
// layers stay in MapView.
import { create } from 'zustand';
import type { AppApi } from '../../backend.ts';
import { useApp } from '../../store.ts';
import { colourIn } from '../../../core/crops/family-colours.ts';

/** 'state': by sync state (the default); 'family' or 'crop': by the parcel's active crop, its family or its name. */
export type ColourBy = 'state' | 'family' | 'crop';

export interface LegendEntry { name: string; colour: string; parcels: number }

/** By name in lower case: the colours core/crops/family-colours.ts cropColours assigns among the account's names. */
export interface CropColours { family: ReadonlyMap<string, string>; crop: ReadonlyMap<string, string> }

export interface RotationsState {
  colourBy: ColourBy;
  /** The account's families and active crops, each a colour no other has while the palette lasts (useCropColours). */
  colours: CropColours;
  /** The families or crops of the parcels shown, most parcels first (what the legend lists while colouring by them). */
  legend: LegendEntry[];
  /** Parcels shown with no active crop; with one that has no family (or, by name, no name); and those of the keys the legend leaves out. */
  bare: number;
  unkeyed: number;
  others: number;
  /** The farm whose rotation table is open, or none. */
  table: string | null;
  /** Colouring by crop: the campaign whose crops colour the map (past or planned); null: each parcel's active crop. */
  campaign: string | null;
}

export const useRotations = create<RotationsState>(() => ({ colourBy: 'state', colours: { family: new Map(), crop: new Map() }, legend: [], bare: 0, unkeyed: 0, others: 0, table: null, campaign: null }));
export const setRotations = useRotations.setState;

/** The farm whose rotation R shows: the selected parcel's, else the farm chosen in the list. */
export async function rotationFarm(api: AppApi): Promise<string | null> {
  const { selectedId, farmId } = useApp.getState();
  if (!selectedId) return farmId;
  return api.parcel({ id: selectedId }).then((p) => p.properties.farm, () => farmId);
}

/** The colour of a family (or, by 'crop', an active crop's name) among the account's (grey for none). */
export const cropColour = (colours: CropColours, by: 'family' | 'crop', name: string | null | undefined): string => colourIn(colours[by], name);
