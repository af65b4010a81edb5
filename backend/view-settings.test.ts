// The view's choices kept by the host in the mirror's settings (core/api-view.ts): none at first, the last ones saved
// after a restart of the host, a bad one refused before it is kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostWorld, type HostWorld } from '../test/helpers/host.ts';
import { RpcCode } from '../core/rpc.ts';
import type { ViewSettings } from '../core/api.ts';

let hw: HostWorld;
beforeAll(async () => { hw = await hostWorld(); });
afterAll(async () => { await hw?.close(); });

describe("the view's choices", () => {
  it('are none at first, and the last ones saved after the host restarts', async () => {
    const { h, acc, home } = await hw.connected();
    expect(await h.api.viewSettings({})).toBeNull();
    const first: ViewSettings = { account: acc, farm: null, colourBy: 'family', filter: {}, plants: false, basemap: null };
    const last: ViewSettings = { account: acc, farm: 'f-1', colourBy: 'crop', filter: { 'Supplier ID': ['S-12', 'S-13'] }, plants: true, basemap: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png' };
    await h.api.saveViewSettings(first);
    await h.api.saveViewSettings(last);
    expect(await h.api.viewSettings({})).toEqual(last);
    await h.close();
    const again = await hw.host(home);
    expect(await again.api.viewSettings({})).toEqual(last);
  }, 60_000);

  it('refuses what is not a view choice, keeping the last one', async () => {
    const { h, acc } = await hw.connected();
    const good: ViewSettings = { account: acc, farm: null, colourBy: 'state', filter: {}, plants: false, basemap: null };
    await h.api.saveViewSettings(good);
    await expect(h.api.saveViewSettings({ ...good, colourBy: 'rainbow' } as unknown as ViewSettings)).rejects.toMatchObject({ code: RpcCode.invalidArguments });
    await expect(h.api.saveViewSettings({ ...good, path: '/etc/passwd' } as unknown as ViewSettings)).rejects.toMatchObject({ code: RpcCode.invalidArguments });
    // Each field within its bounds, the whole too large: a filter of 20 keys of 100 values of 4,000 characters (8 MB).
    const huge = Object.fromEntries(Array.from({ length: 20 }, (_, k) => [`key ${k}`, Array.from({ length: 100 }, (_, v) => `${v}`.padEnd(4000, 'x'))]));
    await expect(h.api.saveViewSettings({ ...good, filter: huge })).rejects.toMatchObject({ code: RpcCode.invalidArguments, message: expect.stringMatching(/at most 65,536 are kept/) });
    expect(await h.api.viewSettings({})).toEqual(good);
  }, 60_000);
});
