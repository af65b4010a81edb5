// `npm run -s cli -- plan --farm NAME`: the farm's rotation plan checked as the app checks it (core/crops/plan-rules.ts)
// against the farm's rule set kept in the mirror; an unknown farm a usage error (exit 2). In process: runCli.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './main.ts';
import { Mirror } from '../db/mirror.ts';
import { defaultRuleSet } from '../core/crops/rule-set.ts';
import { pointParcel } from '../test/helpers/service.ts';

const ACC = 'acc-00000000-0000-4000-8000-0000000000d1';
let dir: string;
let home: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'furrow-cli-plan-'));
  home = join(dir, 'home');
  mkdirSync(home, { mode: 0o700 });
  const m = Mirror.open(join(home, 'mirror.db'));
  m.syncDb.prepare("INSERT INTO accounts (id, service_url, mode, label, created) VALUES (?, 'http://127.0.0.1:1', 'api_key', 'Grower', '2026-01-01')").run(ACC);
  const farm = m.write.createFarm(ACC, 'Finca Plan').local_id;
  const [north] = m.write.createParcels(farm, [pointParcel('North', 8, -4, 37)]).created;
  m.write.createCrop(ACC, north!.local_id, { campaign: '2024/2025', name: 'Chickpea', family_name: 'Fabaceae', is_active: true, sowing: '2024-10-10' });
  m.write.createCrop(ACC, north!.local_id, { campaign: '2026/2027', name: 'Lentil', family_name: 'Fabaceae', is_active: false });
  m.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const status = await runCli(args, { env: { FURROW_HOME: home }, stdout: { write: (s: string) => { stdout += s; } }, stderr: { write: (s: string) => { stderr += s; } } });
  return { status, stdout, stderr };
}

describe('cli plan', () => {
  it("names the plan's violations with the farm's rule set, and refuses an unknown farm", async () => {
    const r = await cli(['plan', '--farm', 'Finca Plan']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      farm: 'Finca Plan', current_campaign_year: 2024, rules: 'the defaults',
      violations: [{ rule: 'return_period', parcel: 'North', campaign: '2026/2027', message: 'Fabaceae back on North in 2026/2027, 2 years after Chickpea (2024/2025): its return period is 4 years' }],
    });
    // The farm's own rule set, kept by the app: a shorter period keeps the plan.
    const m = Mirror.open(join(home, 'mirror.db'));
    const farm = m.read.farmByName(ACC, 'Finca Plan')!.local_id;
    m.write.setRotationRules(farm, JSON.stringify({ ...defaultRuleSet(), returnPeriods: [{ family: 'Fabaceae', years: 2 }] }));
    m.close();
    expect(JSON.parse((await cli(['plan', '--farm', 'Finca Plan'])).stdout)).toMatchObject({ rules: "the farm's own", violations: [] });
    const bad = await cli(['plan', '--farm', 'Nowhere']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^No farm named 'Nowhere'/);
  });
});
