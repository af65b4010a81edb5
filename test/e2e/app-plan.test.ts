// Planning the next campaigns in the app, as a farm manager would (issue 33, "Done means"): the demo's Finca El
// Olivar planned two campaigns ahead with the service stopped (offline), a careless first plan — Durum wheat on
// every parcel — named as a return-period violation on the parcels that had Poaceae last season and as a crop
// diversification shortfall (Regulation (EU) No 1307/2013, Art. 44) on the campaign; a crop dragged to the next
// campaign; the plan fixed with rotation patterns across parcels until no rule is broken; the farm's own
// thresholds tried and put back; the campaign summary read and exported as CSV; then the service back, Sync now,
// every planned crop on the service, and the map coloured by the planned campaign's families. The app runs against a service this test owns (as app-offline.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, ROOT, spawnService, type ServiceProcess } from '../helpers/process.ts';
import { ensureRenderer } from '../../app/renderer-build.ts';
import { CHROMIUM_ARGS, SHOTS } from './embed-harness.ts';
import { HOST_ENV } from '../helpers/host.ts';
import { openApp, selectBySearch, shownOn, startApp, waitOnline, type RunningApp } from './app-harness.ts';

let dir: string;
let svc: ServiceProcess;
let app: RunningApp | null = null;
let browser: Browser;
let account: string;
let key: string;

beforeAll(async () => {
  await ensureRenderer();
  dir = mkdtempSync(join(tmpdir(), 'furrow-plan-'));
  svc = await spawnService(join(dir, 'data'), {}, ['demo', '--serve']);
  account = /account\s+(acc-[\w-]+)/.exec(svc.stderr())![1]!;
  key = (JSON.parse(readFileSync(join(dir, 'data', 'demo-credentials.json'), 'utf8')) as { api_key: string }).api_key;
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  mkdirSync(SHOTS, { recursive: true });
}, 150_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await svc?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const poll = <T>(fn: () => Promise<T>) => expect.poll(fn, { timeout: 30_000 });
const get = async <T>(path: string): Promise<T> => {
  const r = await fetch(`${svc.url}${path}`, { headers: { 'x-api-key': key, 'service-account': account } });
  expect(r.status, path).toBe(200);
  return await r.json() as T;
};
interface Crop { name: string | null; campaign: string | null; is_active: boolean; family: { id: number } | null }
const shot = async (page: Page, name: string) => {
  await page.screenshot({ path: join(SHOTS, name) });
  copyFileSync(join(SHOTS, name), join(ROOT, 'docs/img', name));
};

/** Ticks exactly these parcels, applies the pattern (campaign → crop) and waits for the cells to show it. */
async function applyPattern(table: Locator, parcels: string[], pattern: Record<string, string>) {
  for (const box of await table.locator('input.plan-tick').all()) await box.setChecked(false);
  for (const p of parcels) await table.getByRole('checkbox', { name: `Tick ${p} for the pattern` }).check();
  const form = table.getByRole('form', { name: 'Apply a rotation pattern' });
  for (const [campaign, crop] of Object.entries(pattern)) await form.getByLabel(campaign, { exact: true }).fill(crop);
  await form.getByRole('button', { name: /^Apply to/ }).click();
  await poll(() => form.getByRole('status').textContent()).toMatch(new RegExp(`^Applied to ${parcels.length} parcels?`));
  for (const p of parcels) {
    for (const [campaign, crop] of Object.entries(pattern)) {
      await poll(() => table.locator(`td[data-cell="${p} in ${campaign}"] button.plan-crop`).allTextContents()).toEqual([crop]);
    }
  }
}

describe('planning the next campaigns', () => {
  it('plans Finca El Olivar offline, names a return-period violation and a diversification shortfall, fixes them, and syncs the plan', async () => {
    app = await startApp({ ...HOST_ENV, FURROW_SERVICE: svc.url, FURROW_ACCOUNT: account, FURROW_API_KEY: key, FURROW_HOME: join(dir, 'home'), FURROW_APP_PORT: String(await freePort()) });
    const { page, problems } = await openApp(browser, app.url);
    await poll(() => shownOn(page)).toBeGreaterThanOrEqual(12);
    await waitOnline(page);

    // What the service holds: each parcel's three campaigns, the last one active.
    const farms = await get<{ id: number; name: string }[]>('/api/farms/');
    const olivar = farms.find((f) => f.name === 'Finca El Olivar')!;
    const parcels = (await get<{ features: { id: number; properties: { name: string } }[] }>(`/api/farms/${olivar.id}/parcels/`)).features;
    const history = new Map<string, Crop[]>();
    for (const p of parcels) history.set(p.properties.name, (await get<Crop[]>(`/api/parcels/${p.id}/crops/`)).sort((a, b) => (a.campaign ?? '').localeCompare(b.campaign ?? '')));
    const names = [...history.keys()].sort();
    const crops = [...new Set([...history.values()].flatMap((l) => l.map((c) => c.name!)))];
    expect(crops).toHaveLength(4);
    expect([...history.values()].every((l) => l.map((c) => c.campaign).join() === '2023/2024,2024/2025,2025/2026' && l[2]!.is_active)).toBe(true);

    // Offline: the service stopped, the app says so and goes on.
    await svc.stop();
    await page.getByRole('button', { name: 'Sync now' }).click();
    await waitOnline(page, 'Offline');

    await page.getByRole('button', { name: /Finca El Olivar/ }).click();
    await page.getByRole('button', { name: 'Crop rotation' }).click();
    const table = page.getByRole('dialog', { name: 'Crop rotation of Finca El Olivar' });
    await poll(() => table.locator('thead th').allTextContents()).toEqual(['Parcel', '2023/2024', '2024/2025', '2025/2026', '2026/2027', '2027/2028']);
    expect(await table.locator('thead th.planned').allTextContents()).toEqual(['2026/2027', '2027/2028']);
    await poll(() => table.getByRole('status').filter({ hasText: 'keeps every rule' }).count()).toBe(1);

    // A careless plan: Durum wheat everywhere next campaign.
    await applyPattern(table, names, { '2026/2027': 'Durum wheat' });
    const violations = table.getByRole('region', { name: 'Rule violations' });
    const wheatLast = names.filter((n) => history.get(n)![2]!.name === 'Durum wheat');
    expect(wheatLast.length).toBeGreaterThan(0);
    for (const n of wheatLast) {
      await poll(() => violations.locator('li[data-rule=return_period]').allTextContents()).toContain(
        `Return period · ${n} · 2026/2027: Poaceae back on ${n} in 2026/2027, 1 year after Durum wheat (2025/2026): its return period is 2 years`);
      expect(await table.locator(`td[data-cell="${n} in 2026/2027"]`).getAttribute('class')).toMatch(/violates/);
      expect(await table.locator(`td[data-cell="${n} in 2026/2027"] .violation-mark`).getAttribute('aria-label')).toMatch(/^Return period: Poaceae back on/);
    }
    const shortfall = await violations.locator('li[data-rule=diversification]').allTextContents();
    expect(shortfall).toContainEqual(expect.stringMatching(/^Crop diversification · the farm · 2026\/2027: 2026\/2027: 1 crop on [\d.,]+ ha of arable land, at least 3 needed \(Regulation \(EU\) No 1307\/2013, Art\. 44\(1\), over 30 ha of arable land\)$/));
    expect(shortfall).toContainEqual(expect.stringMatching(/Durum wheat covers 100 % of the arable land, at most 75 %/));
    expect(await table.locator('thead th.violates').allTextContents()).toEqual(['2026/2027']);
    await shot(page, 'app-plan-violations.png');

    // A planned crop dragged to the next campaign on its parcel, then put back by the patterns below.
    const first = names[0]!;
    await table.locator(`td[data-cell="${first} in 2026/2027"] button.plan-crop`).dragTo(table.locator(`td[data-cell="${first} in 2027/2028"]`));
    await poll(() => table.locator(`td[data-cell="${first} in 2027/2028"] button.plan-crop`).allTextContents()).toEqual(['Durum wheat']);
    expect(await table.locator(`td[data-cell="${first} in 2026/2027"] button.plan-crop`).count()).toBe(0);

    // One crop planned from the keyboard in the cell left empty: its family follows the name, the focus back on +.
    await table.getByRole('button', { name: `Plan a crop on ${first} in 2026/2027` }).focus();
    await page.keyboard.press('Enter');
    const one = table.getByRole('form', { name: `Plan a crop on ${first} in 2026/2027` });
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Crop');
    await page.keyboard.type('Chickpea');
    expect(await one.getByLabel('Family').inputValue()).toBe('Fabaceae');
    await page.keyboard.press('Enter');
    await poll(() => table.locator(`td[data-cell="${first} in 2026/2027"] button.plan-crop`).allTextContents()).toEqual(['Chickpea']);
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(`Plan a crop on ${first} in 2026/2027`);
    // And removed again from its chip's form.
    await table.getByRole('button', { name: `Planned Chickpea on ${first} in 2026/2027: change or remove` }).click();
    await table.getByRole('form', { name: `Change Chickpea on ${first} in 2026/2027` }).getByRole('button', { name: 'Remove' }).click();
    await poll(() => table.locator(`td[data-cell="${first} in 2026/2027"] button.plan-crop`).count()).toBe(0);

    // The fix: each parcel goes on with its four-crop rotation — next the crop it has not grown for three seasons,
    // then the one it grew first — applied as one pattern per group of parcels that share it.
    const groups = new Map<string, string[]>();
    for (const n of names) {
      const l = history.get(n)!;
      const next = crops.find((c) => !l.some((x) => x.name === c))!;
      const k = `${next}|${l[0]!.name}`;
      groups.set(k, [...(groups.get(k) ?? []), n]);
    }
    for (const [k, ps] of groups) {
      const [a, b] = k.split('|');
      await applyPattern(table, ps, { '2026/2027': a!, '2027/2028': b! });
    }
    await poll(() => table.getByRole('status').filter({ hasText: 'keeps every rule' }).count()).toBe(1);
    expect(await table.locator('.violates').count()).toBe(0);
    await shot(page, 'app-plan-fixed.png');

    // The farm's own thresholds: a main crop at most 30 % is more than this plan keeps; then the defaults again.
    await table.getByRole('button', { name: 'Rules', exact: true }).click();
    const rules = table.getByRole('form', { name: 'Rotation rules of this farm' });
    await rules.getByLabel('Diversification rule').selectOption('custom');
    await rules.getByLabel('Main crop at most (%)').fill('30');
    await shot(page, 'app-plan-rules.png');
    await rules.getByRole('button', { name: 'Save the rule set' }).click();
    await poll(() => rules.textContent()).toMatch(/This farm's own rule set/);
    await table.getByRole('button', { name: 'Table', exact: true }).click();
    await poll(() => violations.locator('li[data-rule=diversification]').first().textContent()).toMatch(/at most 30 % \(your diversification thresholds\)$/);
    await table.getByRole('button', { name: 'Rules', exact: true }).click();
    await table.getByRole('button', { name: 'Back to the defaults' }).click();
    await poll(() => table.getByRole('form', { name: 'Rotation rules of this farm' }).textContent()).toMatch(/The default rule set/);
    await table.getByRole('button', { name: 'Table', exact: true }).click();
    await poll(() => table.getByRole('status').filter({ hasText: 'keeps every rule' }).count()).toBe(1);

    // The campaign summary: planned campaigns with every parcel's area, exported as CSV through a download.
    await table.getByRole('button', { name: 'Summary', exact: true }).click();
    const summary = table.getByRole('region', { name: 'Campaign summary' });
    await poll(() => summary.getByRole('img', { name: 'Area by family, campaign by campaign' }).locator('rect').count()).toBeGreaterThan(10);
    await shot(page, 'app-plan-summary.png');
    const [download] = await Promise.all([page.waitForEvent('download'), summary.getByRole('button', { name: 'Export the summary as CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('Finca El Olivar campaign summary.csv');
    const rows = readFileSync((await download.path())!, 'utf8').split('\r\n').filter(Boolean).map((l) => l.split(','));
    expect(rows[0]).toEqual(['campaign', 'planned', 'by', 'name', 'family', 'hectares', 'share']);
    const area = (campaign: string) => rows.filter((r) => r[0] === campaign && r[2] === 'family').reduce((s, r) => s + Number(r[5]), 0);
    expect(rows.filter((r) => r[1] === 'true').map((r) => r[0])).toEqual(expect.arrayContaining(['2026/2027', '2027/2028']));
    expect(area('2026/2027')).toBeCloseTo(area('2025/2026'), 3);
    expect(area('2027/2028')).toBeCloseTo(area('2025/2026'), 3);
    await page.keyboard.press('Escape');
    await poll(() => table.count()).toBe(0);

    // The service back: Sync now sends the plan, and the service holds every planned crop, none active.
    svc = await spawnService(join(dir, 'data'), { PORT: String(svc.port) }, ['demo', '--serve']);
    await page.getByRole('button', { name: 'Sync now' }).click();
    await waitOnline(page);
    for (const p of parcels) {
      const n = p.properties.name;
      const l = history.get(n)!;
      const next = crops.find((c) => !l.some((x) => x.name === c))!;
      await poll(async () => (await get<Crop[]>(`/api/parcels/${p.id}/crops/`)).filter((c) => c.campaign! > '2025/2026').map((c) => [c.campaign, c.name, c.is_active]).sort())
        .toEqual([['2026/2027', next, false], ['2027/2028', l[0]!.name, false]]);
    }

    // The map coloured by the planned campaign's crop families: the legend counts the plan's parcels by family.
    await page.getByRole('button', { name: /Finca El Olivar/ }).click();
    await page.waitForTimeout(800); // the fit's animation
    await page.getByLabel('Colour by').selectOption('family');
    await page.getByRole('combobox', { name: 'Campaign' }).selectOption('2026/2027');
    const FAMILY: Record<string, string> = { 'Durum wheat': 'Poaceae', Sunflower: 'Asteraceae', Chickpea: 'Fabaceae', Olive: 'Oleaceae' };
    const planned = new Map<string, number>();
    for (const n of names) {
      const next = FAMILY[crops.find((c) => !history.get(n)!.some((x) => x.name === c))!]!;
      planned.set(next, (planned.get(next) ?? 0) + 1);
    }
    const legend = page.getByRole('list', { name: 'Crop families shown' });
    await poll(async () => (await legend.getByRole('listitem').allTextContents()).filter((t) => !/^(No crop|Others)/.test(t)).sort())
      .toEqual([...planned].map(([f, n]) => `${f} (${n})`).sort());
    await shot(page, 'app-plan-map.png');

    // A parcel's own rotation says which of its crops are planned: the two after its active one.
    await selectBySearch(page, first);
    await poll(() => page.locator('.rotation .crops > li.crop').evaluateAll((els) => els.map((e) => [e.querySelector('.crop-head strong')!.textContent, e.querySelector('.badge')!.textContent])))
      .toEqual([['2027/2028', 'Planned'], ['2026/2027', 'Planned'], ['2025/2026', 'Active'], ['2024/2025', 'Past'], ['2023/2024', 'Past']]);
    expect(await problems()).toEqual([]);
  }, 300_000);
});
