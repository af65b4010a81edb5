// One colour per crop family, the same on every map, under every filter and after every reload: a colour that
// depended on which families happen to be shown would make a filtered map lie about the unfiltered one. The families'
// colours are core/'s palette (core/crops/family-colours.ts), the app's too, so a family looks the same in both.
import { familyColour, NO_CROP_COLOUR } from '../../../../core/crops/family-colours.ts';

export const NO_CROP = 'No current crop';
export const UNCLASSIFIED = 'Crop without family';

/** The legend's two categories that are no family: greys, apart from the palette and from each other. */
const FIXED: Record<string, string> = { [NO_CROP]: NO_CROP_COLOUR, [UNCLASSIFIED]: '#5f6b7a' };

/** The colour of a legend category: a family name (any case), NO_CROP or UNCLASSIFIED. */
export function categoryColor(category: string): string {
  return FIXED[category] ?? familyColour(category);
}
