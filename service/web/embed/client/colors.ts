// One colour per crop family, the same on every map, under every filter and after every reload: a colour that
// depended on which families happen to be shown would make a filtered map lie about the unfiltered one. So the
// colours are assigned among the organization's families (the service sends their names with the parcels), with the
// app's own rule (core/crops/family-colours.ts cropColours) over the same names: a family looks the same in both.
import { colourIn, cropColours, NO_CROP_COLOUR } from '../../../../core/crops/family-colours.ts';

export const NO_CROP = 'No current crop';
export const UNCLASSIFIED = 'Crop without family';

/** The legend's two categories that are no family: greys, apart from the palette and from each other. */
const FIXED: Record<string, string> = { [NO_CROP]: NO_CROP_COLOUR, [UNCLASSIFIED]: '#5f6b7a' };

let assigned: ReadonlyMap<string, string> = new Map();

/** Assigns the families' colours among these names (the organization's families and any shown): before any is drawn. */
export function colourFamilies(names: Iterable<string>): void {
  assigned = cropColours(names);
}

/** The colour of a legend category: a family name (any case), NO_CROP or UNCLASSIFIED. */
export function categoryColor(category: string): string {
  return FIXED[category] ?? colourIn(assigned, category);
}
