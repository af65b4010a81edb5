// The rotation rules a farm's plan is checked against (core/crops/plan-rules.ts), chosen per farm and kept in the
// mirror (db/rotation-rules.ts). Pure data and its defaults; the schema is the contract's (core/api-plan.ts).
//
// Return periods: the least number of years before a botanical family comes back on the same parcel. The defaults
// are common agronomic guidance on soil-borne pests and diseases, not a regulation: Brassicaceae 4 years (clubroot,
// Plasmodiophora brassicae), Fabaceae 4 (pea and bean foot rots, Aphanomyces), Solanaceae 4 (potato cyst nematode),
// Amaranthaceae 3 (beet cyst nematode), Asteraceae 3 (sunflower Sclerotinia), Poaceae 2 (take-all: a break crop
// every other year). They are a farm's starting point: every number is editable, and a family left out has none.
// Diversification: Regulation (EU) No 1307/2013, Article 44(1) (the "greening" crop diversification rule as it stood
// until 2022), or the user's own thresholds.

export interface ReturnPeriod { family: string; years: number }

/** Diversification thresholds on a campaign's arable area (hectares, shares 0..1). */
export interface Thresholds {
  /** Below this arable area a farm is exempt. */
  exemptBelowHa: number;
  minCrops: number;
  /** The main crop's most share of the arable area. */
  mainMax: number;
  /** The two main crops' most share together; null: not checked. */
  twoMainMax: number | null;
}

export interface RuleSet {
  returnPeriods: ReturnPeriod[];
  /** The most campaigns running the same crop (by name) may be grown on a parcel; 0: not checked. */
  maxSameCrop: number;
  /** The most campaigns running the same family may be grown on a parcel; 0: not checked. */
  maxSameFamily: number;
  /** 'eu-1307-2013': Article 44's two tiers; 'custom': `custom`; 'off': not checked. */
  diversification: 'eu-1307-2013' | 'custom' | 'off';
  custom: Thresholds;
  /** Crops on permanent (not arable) land, by name: left out of the arable area (olive groves, orchards, vines). */
  permanentCrops: string[];
}

export const DEFAULT_RETURN_PERIODS: readonly ReturnPeriod[] = [
  { family: 'Brassicaceae', years: 4 },
  { family: 'Fabaceae', years: 4 },
  { family: 'Solanaceae', years: 4 },
  { family: 'Amaranthaceae', years: 3 },
  { family: 'Asteraceae', years: 3 },
  { family: 'Poaceae', years: 2 },
];

/** Article 44(1) of Regulation (EU) No 1307/2013: 10–30 ha at least 2 crops, the main ≤ 75 %. */
export const ART44_SMALL: Thresholds = { exemptBelowHa: 10, minCrops: 2, mainMax: 0.75, twoMainMax: null };
/** Over 30 ha: at least 3 crops, the main ≤ 75 %, the two main together ≤ 95 %. */
export const ART44_LARGE: Thresholds = { exemptBelowHa: 10, minCrops: 3, mainMax: 0.75, twoMainMax: 0.95 };
export const ART44_LARGE_ABOVE_HA = 30;

export function defaultRuleSet(): RuleSet {
  return {
    returnPeriods: DEFAULT_RETURN_PERIODS.map((r) => ({ ...r })),
    maxSameCrop: 2,
    maxSameFamily: 3,
    diversification: 'eu-1307-2013',
    custom: { ...ART44_LARGE },
    permanentCrops: ['Olive', 'Almond', 'Vine', 'Grapevine', 'Orange', 'Walnut', 'Pistachio'],
  };
}

/** Why a rule set cannot be kept, or null: numbers out of range, a family twice (the schema has checked the types). */
export function ruleSetProblem(r: RuleSet): string | null {
  const seen = new Set<string>();
  for (const p of r.returnPeriods) {
    const key = p.family.trim().toLowerCase();
    if (!key) return 'A return period needs a family';
    if (seen.has(key)) return `${p.family.trim()} has two return periods`;
    seen.add(key);
  }
  const c = r.custom;
  if (c.twoMainMax !== null && c.twoMainMax < c.mainMax) return "The two main crops' share cannot be below the main crop's";
  return null;
}
