// What a session is told when a call fails (backend/session-errors.ts): a page never an internal error's detail — the
// host's log gets it, under the reference the page is given — the parent and the CLI all of it, and everyone the
// backend's own refusals as they are. (backend/capabilities.test.ts checks it on a real host's sessions.)
import { describe, expect, it } from 'vitest';
import { RpcCode, RpcError } from '../core/rpc.ts';
import { PAGE_DISK_FULL_MESSAGE, PAGE_INTERNAL_MESSAGE, sessionErrors } from './session-errors.ts';

const PATH = "/home/grower/.local/share/furrow/imports/0f8e/€€€.geojson";
const fsError = () => Object.assign(new Error(`ENAMETOOLONG: name too long, open '${PATH}'`), { code: 'ENAMETOOLONG' });

describe('sessionErrors', () => {
  it("gives a page a general sentence with a reference, and writes the whole error to the host's log under it", () => {
    const log: string[] = [];
    const toError = sessionErrors('page', (text) => log.push(text));
    for (const err of [fsError(), new RpcError(RpcCode.internal, `the import thread failed: ${PATH}`), `thrown ${PATH}`]) {
      const e = toError(err);
      expect(e).toBeInstanceOf(RpcError);
      expect(e.code).toBe(RpcCode.internal);
      expect(e.message).toMatch(new RegExp(`^${PAGE_INTERNAL_MESSAGE.replace(/[()]/g, '\\$&')} \\(ref [0-9a-f]{8}\\)$`));
      expect(e.message).not.toContain('/home/');
      expect(e.details).toBeUndefined();
      const ref = /ref ([0-9a-f]{8})/.exec(e.message)![1]!;
      expect(log.at(-1)).toContain(`(ref ${ref})`);
      expect(log.at(-1)).toContain(PATH);
    }
    expect(log).toHaveLength(3);
  });

  it("tells a page a full disk in words, without the folder (SQLite's SQLITE_FULL, ENOSPC)", () => {
    const toError = sessionErrors('page', () => {});
    for (const err of [Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }), Object.assign(new Error(`ENOSPC: no space left on device, write '${PATH}'`), { code: 'ENOSPC' })]) {
      expect(toError(err)).toMatchObject({ code: 'disk_full', message: PAGE_DISK_FULL_MESSAGE });
      expect(toError(err).message).not.toContain('/home/');
    }
  });

  it('says the command line everything, and writes nothing', () => {
    const log: string[] = [];
    const toError = sessionErrors('cli', (text) => log.push(text));
    expect(toError(fsError())).toMatchObject({ code: RpcCode.internal, message: expect.stringContaining(PATH) });
    const internal = new RpcError(RpcCode.internal, `the import thread failed: ${PATH}`);
    expect(toError(internal)).toBe(internal);
    expect(log).toEqual([]);
  });

  it('tells a page that the service could not be reached as such (a request that got no answer is no internal error)', async () => {
    const { NetworkError } = await import('../sync/transport.ts');
    const log: string[] = [];
    const e = sessionErrors('page', (text) => log.push(text))(new NetworkError('GET /api/farms/: could not connect (connection refused)', { sent: false, reason: 'connection refused' }));
    expect(e).toMatchObject({ code: 'service_unavailable', message: 'GET /api/farms/: could not connect (connection refused)' });
    expect(log).toEqual([]);
  });

  it("passes the backend's own refusals to everyone as they are", () => {
    const refusal = new RpcError('no_account', 'Account acc-1 is not connected on this computer', { account: 'acc-1' });
    for (const caller of ['page', 'cli'] as const) expect(sessionErrors(caller, () => { throw new Error('not logged'); })(refusal)).toBe(refusal);
  });
});
