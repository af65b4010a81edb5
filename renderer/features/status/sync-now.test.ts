// A sync asked for while another runs (a second tab's start, during another tab's automatic sync of every account)
// waits for it to end and then runs, instead of giving up "busy" with a stale status until the next minute.
import { describe, expect, it } from 'vitest';
import { RpcError } from '../../../core/rpc.ts';
import { ApiErrorCode } from '../../../core/api-codes.ts';
import type { AppApi } from '../../backend.ts';
import { syncWhenFree } from './sync-now.ts';

function busyThen(times: number): { api: AppApi; calls: () => number } {
  let calls = 0;
  const api = {
    sync: async () => {
      calls++;
      if (calls <= times) throw new RpcError(ApiErrorCode.busy, 'A sync is already running');
      return [];
    },
  } as unknown as AppApi;
  return { api, calls: () => calls };
}

describe('syncWhenFree', () => {
  it('waits while another sync runs, then syncs', async () => {
    const { api, calls } = busyThen(2);
    await expect(syncWhenFree(api, {}, true)).resolves.toEqual([]);
    expect(calls()).toBe(3);
  });

  it('passes any other refusal on at once', async () => {
    const api = { sync: async () => { throw new RpcError(ApiErrorCode.noAccount, 'no account'); } } as unknown as AppApi;
    await expect(syncWhenFree(api, {}, true)).rejects.toMatchObject({ code: ApiErrorCode.noAccount });
  });
});
