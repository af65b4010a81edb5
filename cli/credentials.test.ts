// Where the CLI (and the app's backend) keeps an account's secrets: a file only the user can read, or — the
// organization's API key — the FURROW_API_KEY environment variable, so that no copy of the key is written at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { syncWorld, parcelInputs, type SyncWorld } from '../test/helpers/sync.ts';
import { Mirror } from '../db/mirror.ts';
import { runCli } from './main.ts';

let w: SyncWorld;
beforeAll(async () => { w = await syncWorld({ LOG_LEVEL: 'fatal' }); });
afterAll(async () => { await w?.close(); });

async function cli(home: string, args: string[], env: Record<string, string> = {}) {
  let out = '';
  const status = await runCli(args, { env: { FURROW_HOME: home, FURROW_SETTLE_MS: '200', FURROW_MAX_WAIT_MS: '3000', ...env }, stdout: { write: (s: string) => { out += s; } }, stderr: { write: (s: string) => { out += s; } } });
  return { status, out };
}

describe('credentials', () => {
  it('with FURROW_API_KEY the key is read from the environment and never written; without it the account waits, saying why', async () => {
    const home = mkdtempSync(join(w.dir, 'envkey-'));
    const acc = (await w.api('POST', '/api/accounts/', { account_email: `env-${Math.random().toString(36).slice(2)}@example.com` })).body.id as string;
    const env = { FURROW_API_KEY: w.apiKey };
    expect((await cli(home, ['connect', '--service', w.svc.url, '--api-key', w.apiKey, '--account', acc], env)).status).toBe(0);
    const file = join(home, 'credentials.json');
    expect(readFileSync(file, 'utf8')).not.toContain(w.apiKey);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const m = Mirror.open(join(home, 'mirror.db'));
    const farm = m.write.createFarm(acc, 'Env farm');
    m.write.createParcels(farm.local_id, parcelInputs(2, 'env'));
    m.close();
    // Not set: nothing is sent with a made-up key; the account is blocked with the reason, and its work kept.
    const without = await cli(home, ['sync']);
    expect(without.status).toBe(2);
    expect(without.out).toMatch(/FURROW_API_KEY, which is not set here/);
    const withKey = await cli(home, ['sync'], env);
    expect(withKey.status).toBe(0);
    expect(withKey.out).toMatch(/3 changes acknowledged/);
    expect(withKey.out).not.toContain(w.apiKey);
  });

  it('without it the key goes to a file only the user can read, and never to the mirror or the output', async () => {
    const home = mkdtempSync(join(w.dir, 'filekey-'));
    const acc = (await w.api('POST', '/api/accounts/', { account_email: `file-${Math.random().toString(36).slice(2)}@example.com` })).body.id as string;
    const r = await cli(home, ['connect', '--service', w.svc.url, '--api-key', w.apiKey, '--account', acc]);
    expect(r.status).toBe(0);
    expect(r.out).not.toContain(w.apiKey);
    expect(readFileSync(join(home, 'credentials.json'), 'utf8')).toContain(w.apiKey);
    expect(statSync(join(home, 'credentials.json')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(home, 'mirror.db')).includes(Buffer.from(w.apiKey))).toBe(false);
  });
});
