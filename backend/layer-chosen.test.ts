// Files chosen in Electron's open dialog, by ticket (backend/layer-chosen.ts): only main's well-formed message is
// taken; a ticket is redeemed once, within its time; a redeem that comes before main's message waits a moment for it.
import { describe, expect, it } from 'vitest';
import { ChosenPaths, TICKET_TTL_MS } from './layer-chosen.ts';
import { LAYER_FILE_CHOSEN } from '../core/host-protocol.ts';

const T = 'a'.repeat(32);
const msg = (ticket: string, path: unknown) => ({ type: LAYER_FILE_CHOSEN, ticket, path });

describe('chosen paths', () => {
  it('are redeemed once, within their time', async () => {
    let now = 0;
    const c = new ChosenPaths(() => now);
    expect(c.take(msg(T, '/home/ana/ortho.tif'))).toBe(true);
    expect(await c.redeem(T)).toBe('/home/ana/ortho.tif');
    expect(await c.redeem(T, 10)).toBeNull();
    const u = 'b'.repeat(32);
    c.take(msg(u, '/home/ana/x.tif'));
    now += TICKET_TTL_MS;
    expect(await c.redeem(u, 10)).toBeNull();
  });

  it('take only a well-formed message', async () => {
    const c = new ChosenPaths();
    for (const bad of [msg('short', '/x'), msg(T, ''), msg(T, 42), msg(T, 'a\0b'), msg(T, 'x'.repeat(5000)), { type: 'other', ticket: T, path: '/x' }, null, 'x']) {
      expect(c.take(bad)).toBe(false);
    }
    expect(await c.redeem(T, 10)).toBeNull();
  });

  it('let a redeem that came first wait for its path, and give up after a while', async () => {
    const c = new ChosenPaths();
    const waiting = c.redeem(T, 1000);
    c.take(msg(T, '/media/usb/catastro.gpkg'));
    expect(await waiting).toBe('/media/usb/catastro.gpkg');
    expect(await c.redeem('c'.repeat(32), 20)).toBeNull();
  });
});
