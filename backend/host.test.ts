// The app's backend through core/api.ts, as the app will use it: a real mirror host process, a real local service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { syncWorld, type SyncWorld } from '../test/helpers/sync.ts';
import { serviceParcels } from '../test/helpers/engine.ts';
import { square } from '../test/helpers/service.ts';
import type { SyncProgress } from '../core/api.ts';
import { events } from '../test/helpers/host.ts';
import { RpcCode } from '../core/rpc.ts';
import { launchHost, type Host } from './launch.ts';

let w: SyncWorld;
const hosts: Host[] = [];
beforeAll(async () => { w = await syncWorld({ LOG_LEVEL: 'fatal' }); });
afterAll(async () => {
  for (const h of hosts) await h.close();
  await w?.close();
});

const ENV = { FURROW_SETTLE_MS: '200', FURROW_MAX_WAIT_MS: '3000' };
async function host(home: string, entry?: string, secrets: { credentialKey?: string } = {}): Promise<Host> {
  const h = await launchHost({ home, env: ENV, entry, secrets });
  hosts.push(h);
  return h;
}
const newHome = () => mkdtempSync(join(w.dir, 'home-'));
async function newAccount(): Promise<string> {
  return (await w.api('POST', '/api/accounts/', { account_email: `host-${Math.random().toString(36).slice(2)}@example.com` })).body.id as string;
}
const poly = (lon: number, lat: number, ha = 1) => ({ type: 'Polygon' as const, coordinates: square(lon, lat, Math.sqrt(ha * 10_000)) });

describe('the mirror host', () => {
  it('refuses a client of another API version, and unknown accounts with a code', async () => {
    const h = await host(newHome());
    await expect(h.api.hello({ apiVersion: 999 })).rejects.toMatchObject({ code: 'version_mismatch' });
    await expect(h.api.farms({ account: 'acc-nope' })).rejects.toMatchObject({ code: 'no_account' });
    await expect(h.api.viewport({ account: 'x', bbox: [0, 0, 200, 0] } as never)).rejects.toMatchObject({ code: RpcCode.invalidArguments });
  });

  it('connects an account, keeps offline edits and their undo history across a restart, and says what changed', async () => {
    const home = newHome();
    const acc = await newAccount();
    let h = await host(home);
    await expect(h.api.connect({ service: w.svc.url, account: acc, apiKey: 'fk_wrong' })).rejects.toMatchObject({ code: 'connect_refused' });
    const { account } = await h.api.connect({ service: w.svc.url, account: acc, apiKey: w.apiKey, label: 'Finca test' });
    expect(account).toMatchObject({ id: acc, label: 'Finca test', blocked: null });
    expect(JSON.stringify(await h.api.accounts({}))).not.toContain(w.apiKey);

    const ev = events(h);
    const farm = await h.api.createFarm({ account: acc, name: 'Cortijo' });
    const drawn = await h.api.createParcel({ farm: farm.id, name: 'Drawn', metadata: { 'Supplier ID': 'S-1' }, geometry: poly(-4, 37, 2) });
    const dropped = await h.api.createParcel({ farm: farm.id, name: 'Dropped', point: [-4.01, 37], hectares: 3 });
    expect(drawn.properties).toMatchObject({ state: 'pending', metadata: { 'Supplier ID': 'S-1' } });
    expect(drawn.properties.hectares).toBeCloseTo(2, 1);
    // The square the service will make around the point, with its exact area.
    expect(dropped.properties).toMatchObject({ point: [-4.01, 37] });
    expect(dropped.properties.hectares).toBe(3);
    await expect(h.api.createParcel({ farm: farm.id, name: 'Huge', geometry: poly(-4.1, 37, 150) })).rejects.toMatchObject({ code: 'invalid_parcel' });
    await h.api.updateParcel({ id: drawn.id, name: 'Drawn and renamed' });
    await ev.until((e) => e.type === 'changed' && e.parcels.upserted.includes(drawn.id));
    expect(ev.changes().some((e) => e.farms.includes(farm.id))).toBe(true);
    expect(await h.api.history({ account: acc })).toEqual({ undo: 'Edit parcel', redo: null });

    await h.close();
    h = await host(home);
    const ev2 = events(h);
    const shown = await h.api.viewport({ account: acc, bbox: [-4.1, 36.9, -3.9, 37.1] });
    expect(shown.features.map((f) => f.properties.name).sort()).toEqual(['Drawn and renamed', 'Dropped']);
    expect(shown.truncated).toBe(false);
    const cut = await h.api.viewport({ account: acc, bbox: [-4.1, 36.9, -3.9, 37.1], limit: 1 });
    expect([cut.features.length, cut.truncated]).toEqual([1, true]);
    // The box the map fits to: around both parcels (a farm without any: backend/farms.test.ts), none for no farm.
    const [w0, s0, e0, n0] = (await h.api.farmExtent({ farm: farm.id }))!;
    expect(w0).toBeLessThan(-4.01);
    expect(e0).toBeGreaterThan(-4);
    expect([s0 < 37, n0 > 37]).toEqual([true, true]);
    await expect(h.api.farmExtent({ farm: 'no-such-farm' })).rejects.toMatchObject({ code: 'not_found' });
    // The list beside the map: a page by name, and the page holding a parcel (a page of one here).
    expect((await h.api.farmParcels({ farm: farm.id })).parcels.map((p) => [p.name, p.state])).toEqual([['Drawn and renamed', 'pending'], ['Dropped', 'pending']]);
    expect(await h.api.farmParcels({ around: dropped.id, limit: 1 })).toMatchObject({ farm: farm.id, total: 2, offset: 1, parcels: [{ id: dropped.id, name: 'Dropped', hectares: 3 }] });
    await expect(h.api.farmParcels({ around: 'no-such-parcel' })).rejects.toMatchObject({ code: 'not_found' });
    // An offset past what any farm holds is refused as bad arguments, never an internal error from SQLite.
    await expect(h.api.farmParcels({ farm: farm.id, offset: 2 ** 63 })).rejects.toMatchObject({ code: 'invalid_arguments' });
    expect(await h.api.undo({ account: acc })).toBe('Edit parcel');
    expect((await h.api.parcel({ id: drawn.id })).properties.name).toBe('Drawn');
    await ev2.until((e) => e.type === 'changed' && e.parcels.upserted.includes(drawn.id));
    expect(await h.api.redo({ account: acc })).toBe('Edit parcel');
    await h.api.deleteParcel({ id: dropped.id });
    await ev2.until((e) => e.type === 'changed' && e.parcels.removed.includes(dropped.id));
    expect((await h.api.search({ account: acc, text: 'renam' })).map((f) => f.id)).toEqual([drawn.id]);
  });

  it('syncs with progress whose totals add up, and the map then shows the parcels synced; a sync that changes nothing sends no change', async () => {
    const home = newHome();
    const acc = await newAccount();
    const h = await host(home);
    await h.api.connect({ service: w.svc.url, account: acc, apiKey: w.apiKey });
    const farm = await h.api.createFarm({ account: acc, name: 'Sync farm' });
    for (let i = 0; i < 3; i++) await h.api.createParcel({ farm: farm.id, name: `P${i}`, geometry: poly(-3 + i * 0.01, 38) });
    const progress: SyncProgress[] = [];
    const ev = events(h);
    const [r] = await h.api.sync({ account: acc }, { onProgress: (p) => progress.push(p) });
    expect(r).toMatchObject({ account: acc, synced: true, committed: 4 });
    // Every phase reports a real total, and ends with all of it done: the farm went with its 3 parcels.
    const last = new Map(progress.map((p) => [p.phase, p]));
    expect([...last.keys()]).toEqual(['farms', 'pull', 'done']);
    for (const p of last.values()) expect([p.phase, p.done]).toEqual([p.phase, p.total]);
    expect(last.get('farms')).toMatchObject({ done: 1, total: 1 });
    for (const p of progress) expect(p.total).toBeGreaterThan(0);
    const shown = await h.api.viewport({ account: acc, bbox: [-3.1, 37.9, -2.9, 38.1] });
    expect(shown.features.map((f) => f.properties.state)).toEqual(['synced', 'synced', 'synced']);
    expect(shown.features.every((f) => f.properties.serverId !== null)).toBe(true);
    expect(ev.changes().flatMap((e) => e.parcels.upserted).length).toBeGreaterThanOrEqual(3);
    const onService = await serviceParcels(w, acc, (await h.api.farms({ account: acc }))[0]!.serverId!);
    expect(onService).toHaveLength(3);

    ev.clear();
    expect((await h.api.sync({ account: acc }))[0]).toMatchObject({ synced: true, committed: 0 });
    expect(ev.changes()).toEqual([]);
  });

  it('two accounts sync at once: the blocked one waits with its reason, the other is unaffected', async () => {
    const home = newHome();
    const good = await newAccount();
    const gone = await newAccount();
    const h = await host(home);
    for (const acc of [good, gone]) await h.api.connect({ service: w.svc.url, account: acc, apiKey: w.apiKey });
    for (const acc of [good, gone]) {
      const farm = await h.api.createFarm({ account: acc, name: `Farm of ${acc.slice(-4)}` });
      await h.api.createParcel({ farm: farm.id, name: 'One', geometry: poly(-2, 39) });
    }
    expect((await w.api('DELETE', `/api/accounts/${gone}/`)).status).toBe(204);
    const results = await h.api.sync({});
    expect(results.find((r) => r.account === good)).toMatchObject({ synced: true, committed: 2, blocked: null });
    expect(results.find((r) => r.account === gone)).toMatchObject({ synced: false, blocked: 'Account not found' });
    const accounts = await h.api.accounts({});
    expect(accounts.find((a) => a.id === gone)!.blocked).toMatchObject({ code: 'account_not_found', waiting: 2 });
    expect(accounts.find((a) => a.id === good)!.blocked).toBeNull();
    expect((await h.api.problems({ account: gone }))[0]).toMatchObject({ kind: 'account_blocked' });
    // Removing it is refused while its work is unsynced, then done on request.
    await expect(h.api.disconnect({ account: gone })).rejects.toMatchObject({ code: 'unsynced_work', details: { total: 2 } });
    expect(await h.api.disconnect({ account: gone, discardUnsynced: true })).toMatchObject({ farms: 1, parcels: 1, discarded: 2 });
    expect((await h.api.accounts({})).map((a) => a.id)).toEqual([good]);
  });

  it('cancels a sync halfway: what was out is booked, the rest stays queued, and the next sync sends each parcel once', async () => {
    const home = newHome();
    const acc = await newAccount();
    const h = await host(home);
    await h.api.connect({ service: w.svc.url, account: acc, apiKey: w.apiKey });
    const farm = await h.api.createFarm({ account: acc, name: 'Big farm' });
    const file = join(home, 'big.geojson');
    writeFileSync(file, JSON.stringify({
      type: 'FeatureCollection',
      features: Array.from({ length: 1000 }, (_, i) => ({ type: 'Feature', properties: { name: `F${i}` }, geometry: poly(-1 + (i % 40) * 0.003, 40 + Math.floor(i / 40) * 0.003, 0.5) })),
    }));
    await h.api.importFile({ account: acc, path: file, farm: 'Big farm' });
    const stop = new AbortController();
    const run = h.api.sync({ account: acc }, { signal: stop.signal, onProgress: (p) => { if (p.phase === 'parcels' && p.done >= 100) stop.abort(); } });
    // The run says it was stopped (and what it booked), rather than failing.
    expect((await run)[0]).toMatchObject({ cancelled: true, synced: false });
    const [acct] = await h.api.accounts({});
    expect(acct!.counts).toMatchObject({ in_flight: 0, uncertain: 0 });
    expect(acct!.counts.pending).toBeGreaterThan(0);
    expect((await h.api.sync({ account: acc }))[0]).toMatchObject({ synced: true });
    const onService = await serviceParcels(w, acc, (await h.api.farms({ account: acc })).find((f) => f.id === farm.id)!.serverId!);
    expect(onService).toHaveLength(1000);
    expect(new Set(onService.map((p) => p.properties.metadata.furrow_ref)).size).toBe(1000);
  });

  it('imports on its own thread while queries are answered, cancels an import with nothing half-done, and reports bad files with a code', async () => {
    const home = newHome();
    const acc = await newAccount();
    const h = await host(home);
    await h.api.connect({ service: w.svc.url, account: acc, apiKey: w.apiKey });
    const file = join(home, 'many.geojson');
    writeFileSync(file, JSON.stringify({
      type: 'FeatureCollection',
      features: Array.from({ length: 20_000 }, (_, i) => ({ type: 'Feature', properties: { name: `M${i}`, crop: 'wheat' }, geometry: poly(1 + (i % 150) * 0.003, 41 + Math.floor(i / 150) * 0.003, 0.5) })),
    }));
    // Cancelled once it has written a first chunk: the import rolls back whole.
    const stop = new AbortController();
    const ev = events(h);
    const cancelled = h.api.importFile({ account: acc, path: file, farm: 'Imported' }, { signal: stop.signal, onProgress: (p) => { if (p.done > 0) stop.abort(); } });
    // Answered while the import thread works.
    expect(await h.api.accounts({})).toHaveLength(1);
    await expect(cancelled).rejects.toMatchObject({ code: 'cancelled' });
    expect(await h.api.farms({ account: acc })).toEqual([]);
    expect((await h.api.accounts({}))[0]!.counts.pending).toBe(0);
    expect(ev.changes()).toEqual([]);

    const progress: number[] = [];
    const r = await h.api.importFile({ account: acc, path: file, farm: 'Imported' }, { onProgress: (p) => progress.push(p.done) });
    expect(r).toMatchObject({ imported: 20_000, skipped: 0 });
    expect(progress.at(-1)).toBe(20_000);
    await ev.until((e) => e.type === 'changed' && e.manyParcels && e.farms.includes(r.farm));
    expect((await h.api.farms({ account: acc }))[0]).toMatchObject({ name: 'Imported', parcels: 20_000 });

    writeFileSync(join(home, 'bad.geojson'), '{"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {"name": "x"}, "geometry": {"type": "Polygon", "coordinates": [[[0,0],[1,1],[0,1],[1,0],[0,0]]]}}]}');
    await expect(h.api.importFile({ account: acc, path: join(home, 'bad.geojson'), farm: 'Bad' })).rejects.toMatchObject({ code: 'import_failed', details: { code: 'invalid_features' } });
  });

  it('an import and a sync asked for together take turns, neither refused nor waiting on the database lock; a second sync is refused', async () => {
    const home = newHome();
    const [a, b] = [await newAccount(), await newAccount()];
    const h = await host(home);
    for (const acc of [a, b]) await h.api.connect({ service: w.svc.url, account: acc, apiKey: w.apiKey });
    const file = (name: string, n: number, lat: number) => {
      const path = join(home, name);
      writeFileSync(path, JSON.stringify({ type: 'FeatureCollection', features: Array.from({ length: n }, (_, i) => ({ type: 'Feature', properties: { name: `${name}${i}` }, geometry: poly(2 + (i % 100) * 0.003, lat + Math.floor(i / 100) * 0.003, 0.5) })) }));
      return path;
    };
    await h.api.importFile({ account: b, path: file('b.geojson', 600, 42), farm: 'To send' });
    const ended: string[] = [];
    // The sync first, then, while it runs, an import into the other account and one more sync.
    const sync = h.api.sync({ account: b }).then((r) => { ended.push('sync'); return r; });
    const imported = h.api.importFile({ account: a, path: file('a.geojson', 5000, 43), farm: 'Arrived' }).then((r) => { ended.push('import'); return r; });
    await expect(h.api.sync({ account: a })).rejects.toMatchObject({ code: 'busy' });
    // An edit asked for meanwhile waits for the import's commit, then lands.
    const [farmB] = await h.api.farms({ account: b });
    const edit = h.api.createParcel({ farm: farmB!.id, name: 'While busy', point: [2.5, 42.5], hectares: 1 });
    expect((await sync)[0]).toMatchObject({ synced: true });
    expect(await imported).toMatchObject({ imported: 5000 });
    expect(ended).toEqual(['sync', 'import']);
    expect((await edit).properties.name).toBe('While busy');
    expect((await h.api.farms({ account: a }))[0]).toMatchObject({ name: 'Arrived', parcels: 5000 });
    // The edit went with that sync or waits for the next: on the service once either way.
    expect((await h.api.sync({ account: b }))[0]).toMatchObject({ synced: true });
    const names = (await serviceParcels(w, b, (await h.api.farms({ account: b }))[0]!.serverId!)).map((p) => p.properties.name);
    expect([names.length, new Set(names).size, names.includes('While busy')]).toEqual([601, 601, true]);
  });

  it('runs from the built JavaScript as well: dist/host.mjs imports on its bundled thread, with no TypeScript loader', async () => {
    const { ensureBuilt } = await import('../scripts/build.mjs');
    const entry = fileURLToPath(await ensureBuilt('host'));
    const home = newHome();
    const acc = await newAccount();
    // As the packaged app starts it: with the key its keychain guards, the secrets are kept sealed, never in clear.
    const h = await host(home, entry, { credentialKey: randomBytes(32).toString('base64') });
    await h.api.connect({ service: w.svc.url, account: acc, apiKey: w.apiKey });
    expect(existsSync(join(home, 'credentials.json'))).toBe(false);
    expect(readFileSync(join(home, 'credentials.sealed'), 'utf8')).not.toContain(w.apiKey);
    expect((await h.api.sync({ account: acc }))[0]).toMatchObject({ synced: true }); // the sealed key opened and authenticated
    const file = join(home, 'built.geojson');
    // Large enough for the import's own worker threads too (over 4 MiB).
    writeFileSync(file, JSON.stringify({
      type: 'FeatureCollection',
      features: Array.from({ length: 12_000 }, (_, i) => ({ type: 'Feature', properties: { name: `B${i}`, note: 'x'.repeat(200) }, geometry: poly(2 + (i % 120) * 0.003, 42 + Math.floor(i / 120) * 0.003, 0.5) })),
    }));
    expect(statSync(file).size).toBeGreaterThan(4 << 20);
    expect(await h.api.importFile({ account: acc, path: file, farm: 'Built' })).toMatchObject({ imported: 12_000 });
  });
});
