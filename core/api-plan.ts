// The app's backend contract, the rotation plan (farm managers): the rule set a farm's plan is checked against
// (core/crops/rule-set.ts, kept per farm in the mirror) and the plan exported — its campaign summary as CSV, or the
// plan with its rule set and violations as JSON — for the page to download. Planned crops themselves are crops of a
// campaign after the current one (core/crops/campaign-summary.ts), written with createCrop/updateCrop/deleteCrop.
// Part of API (core/api.ts).
import { Type, type Static } from '@sinclair/typebox';
import { PAGE_AND_CLI, PAGE_ONLY, type Contract } from './rpc.ts';
import { AccountId, Id, Nullable, Obj } from './api-schemas.ts';
import { Download } from './api-export.ts';

const Share = Type.Number({ minimum: 0, maximum: 1 });
const Years = Type.Integer({ minimum: 0, maximum: 20 });
const Family = Type.String({ minLength: 1, maxLength: 120, pattern: '\\S' });
export const Thresholds = Obj({
  exemptBelowHa: Type.Number({ minimum: 0, maximum: 1_000_000 }),
  minCrops: Type.Integer({ minimum: 1, maximum: 20 }),
  mainMax: Share,
  twoMainMax: Nullable(Share),
});
export const RuleSet = Obj({
  returnPeriods: Type.Array(Obj({ family: Family, years: Years }), { maxItems: 100 }),
  maxSameCrop: Years,
  maxSameFamily: Years,
  diversification: Type.Union([Type.Literal('eu-1307-2013'), Type.Literal('custom'), Type.Literal('off')]),
  custom: Thresholds,
  permanentCrops: Type.Array(Type.String({ minLength: 1, maxLength: 120, pattern: '\\S' }), { maxItems: 200 }),
});
export type RuleSetSchema = Static<typeof RuleSet>;

/** A farm's rule set, and whether it was chosen for the farm (else the defaults). */
export const FarmRules = Obj({ farm: Id, rules: RuleSet, chosen: Type.Boolean() });
export type FarmRules = Static<typeof FarmRules>;

export const PLAN_API = {
  mapCampaigns: {
    callers: PAGE_AND_CLI, description: "The account's campaigns, oldest first, each planned or not (after the current one), for the map coloured by a chosen campaign",
    args: Obj({ account: AccountId }), result: Type.Array(Obj({ campaign: Type.String(), planned: Type.Boolean() })),
  },
  rotationRules: { callers: PAGE_AND_CLI, description: "The rotation rule set a farm's plan is checked against: the farm's own, else the defaults", args: Obj({ farm: Id }), result: FarmRules },
  setRotationRules: {
    callers: PAGE_AND_CLI, description: "Keeps a farm's rotation rule set in the mirror (null: back to the defaults)",
    args: Obj({ farm: Id, rules: Nullable(RuleSet) }), result: FarmRules,
  },
  // A page's only, as exportDownload: the host writes the file and the page downloads it at the path answered.
  planDownload: {
    callers: PAGE_ONLY,
    description: "A farm's plan to download: its campaign summary (area by crop and family, past and planned) as CSV, or the plan — crops by parcel and campaign, its rule set and violations — as JSON",
    args: Obj({ farm: Id, format: Type.Union([Type.Literal('csv'), Type.Literal('json')]) }),
    result: Download,
  },
} satisfies Contract;
