// The rotation plan (core/api-plan.ts): a farm's rule set kept in the mirror's settings (one row per farm, checked
// against the contract's schema when read: a value kept by another version or edited by hand gives the defaults),
// and the plan exported for the page — the campaign summary as CSV, the plan with its rule set and violations as
// JSON — through the page session's bytes (backend/bytes.ts), as exportDownload does.
import { writeFile, rm } from 'node:fs/promises';
import { Value } from '@sinclair/typebox/value';
import { RpcCode, RpcError, type HandlersOf } from '../core/rpc.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import { RuleSet as RuleSetSchema, type FarmRules, type PLAN_API } from '../core/api-plan.ts';
import { defaultRuleSet, ruleSetProblem, type RuleSet } from '../core/crops/rule-set.ts';
import { checkPlan, type PlanParcel } from '../core/crops/plan-rules.ts';
import { campaignSummary, currentCampaignYear, isPlannedCampaign, summaryCsv } from '../core/crops/campaign-summary.ts';
import type { Mirror } from '../db/mirror.ts';
import type { ByteSession } from './bytes.ts';
import type { HostContext } from './context.ts';
import { accountOf, farmOf } from './views.ts';
import { campaignOrder } from '../core/crops/rotation.ts';
import { exportFileName } from './export.ts';

type Handlers = HandlersOf<typeof PLAN_API>;

/** Today, as the plan is told by (the current campaign when no crop is sown yet). */
export const today = (): string => new Date().toISOString().slice(0, 10);

export function farmRules(m: Mirror, farmLocalId: string): FarmRules {
  const json = m.write.rotationRules(farmLocalId);
  if (json !== null) {
    try {
      const v: unknown = JSON.parse(json);
      if (Value.Check(RuleSetSchema, v) && ruleSetProblem(v) === null) return { farm: farmLocalId, rules: v, chosen: true };
    } catch {
      // Not JSON: the defaults, as for no value.
    }
  }
  return { farm: farmLocalId, rules: defaultRuleSet(), chosen: false };
}

/** A farm's parcels with their live crops, each crop's family by name, and its current campaign's year. */
export function farmPlan(m: Mirror, farmLocalId: string): { parcels: PlanParcel[]; current: number } {
  const f = farmOf(m, farmLocalId);
  const families = new Map(m.read.cropFamilies(f.account_id).map((x) => [x.id, x.name]));
  const crops = m.read.farmCrops(f.local_id);
  const parcels = m.read.parcels(f.local_id).sort((a, b) => a.name.localeCompare(b.name) || (a.local_id < b.local_id ? -1 : 1));
  const byParcel = new Map<string, PlanParcel['crops']>();
  for (const c of crops) {
    const list = byParcel.get(c.parcel_local_id!) ?? [];
    list.push({ id: c.local_id, name: c.name, campaign: c.campaign, family: c.family_name ?? (c.family_id === null ? null : families.get(c.family_id) ?? null) });
    byParcel.set(c.parcel_local_id!, list);
  }
  const current = currentCampaignYear(crops.map((c) => ({ campaign: c.campaign, sowing: c.sowing, active: c.is_active === 1 })), today());
  return { parcels: parcels.map((p) => ({ id: p.local_id, name: p.name, hectares: p.hectares, crops: byParcel.get(p.local_id) ?? [] })), current };
}

export function planHandlers(ctx: HostContext): Pick<Handlers, 'rotationRules' | 'setRotationRules' | 'mapCampaigns'> {
  return {
    mapCampaigns: ({ account }) => {
      accountOf(ctx.mirror, account);
      const rows = ctx.mirror.read.accountCampaigns(account);
      // The account's clock, as a farm's (core/crops/campaign-summary.ts): the newest campaign with a crop sown or on the ground.
      const current = currentCampaignYear(rows.map((r) => ({ campaign: r.campaign, sowing: null, active: r.started === 1 })), today());
      return campaignOrder(rows.map((r) => r.campaign)).filter((c): c is string => c !== null).map((campaign) => ({ campaign, planned: isPlannedCampaign(campaign, current) }));
    },
    rotationRules: ({ farm }) => farmRules(ctx.mirror, farmOf(ctx.mirror, farm).local_id),
    setRotationRules: ({ farm, rules }) => {
      const f = farmOf(ctx.mirror, farm);
      const problem = rules === null ? null : ruleSetProblem(rules);
      if (problem !== null) return Promise.reject(new RpcError(ApiErrorCode.invalidRules, problem));
      return ctx.jobs.write(() => {
        ctx.mirror.write.setRotationRules(f.local_id, rules === null ? null : JSON.stringify(rules));
        return farmRules(ctx.mirror, f.local_id);
      });
    },
  };
}

/** The plan as JSON: each parcel's crops by campaign (planned marked), the rule set and every violation. */
function planJson(m: Mirror, farmLocalId: string): string {
  const f = farmOf(m, farmLocalId);
  const { parcels, current } = farmPlan(m, farmLocalId);
  const { rules, chosen } = farmRules(m, farmLocalId);
  return `${JSON.stringify({
    farm: f.name, currentCampaignYear: current, rules, rulesChosen: chosen,
    parcels: parcels.map((p) => ({ name: p.name, hectares: p.hectares, crops: p.crops.map((c) => ({ campaign: c.campaign, name: c.name, family: c.family, planned: isPlannedCampaign(c.campaign, current) })) })),
    violations: checkPlan(parcels, rules as RuleSet).map((v) => ({ rule: v.rule, campaign: v.campaign, parcel: v.parcel === null ? null : parcels.find((p) => p.id === v.parcel)!.name, message: v.message })),
  }, null, 2)}\n`;
}

/** A page session's plan downloads (none for the command line: refused, as the contract's callers already do). */
export function planDownloadHandlers(mirror: Mirror, bytes: ByteSession | null): Pick<Handlers, 'planDownload'> {
  return {
    planDownload: async ({ farm, format }) => {
      if (!bytes) throw new RpcError(RpcCode.forbidden, "'planDownload' is for the app's page");
      const f = farmOf(mirror, farm);
      const plan = farmPlan(mirror, f.local_id);
      const text = format === 'csv' ? summaryCsv(campaignSummary(plan.parcels, plan.current)) : planJson(mirror, f.local_id);
      const file = bytes.file(format);
      const fileName = exportFileName(`${f.name} ${format === 'csv' ? 'campaign summary' : 'plan'}`, format);
      let added: { path: string; size: number };
      try {
        await writeFile(file, text, { mode: 0o600, flag: 'wx' });
        added = bytes.add({ file, name: fileName, type: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json' });
      } catch (err) {
        await rm(file, { force: true });
        // The page that asked has gone (bytes.add); a failed write is the host's own error, logged.
        if (err instanceof Error && /page that asked/.test(err.message)) throw new RpcError(RpcCode.disconnected, err.message);
        throw err;
      }
      return { path: added.path, fileName, parcels: plan.parcels.length, bytes: added.size };
    },
  };
}
