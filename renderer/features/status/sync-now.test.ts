// A sync asked for while another runs (a second tab's start, during another tab's automatic sync of every account)
// waits for it to end and then runs, instead of giving up "busy" with a stale status until the next minute.
import { describe, expect, it } from 'vitest';
import { RpcError } from '../../../core/rpc.ts';
import { ApiErrorCode } from '../../../core/api-codes.ts';
import type { AppApi } from '../../backend.ts';
import { syncNow, syncWhenFree } from './sync-now.ts';
import { set, useApp } from '../../store.ts';
import type { AccountSummary } from '../../../core/api.ts';

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

describe('syncNow asked for while a sync runs', () => {
  it('runs one more sync when it ends (the edit saved meanwhile is sent then), however often it was asked', async () => {
    const ends: Array<() => void> = [];
    const accounts: Array<string | undefined> = [];
    const api = {
      sync: (args: { account?: string }) => {
        accounts.push(args.account);
        return new Promise((resolve) => ends.push(() => resolve([])));
      },
    } as unknown as AppApi;
    set({ account: { id: 'a1' } as AccountSummary, syncing: false, message: null });
    const first = syncNow(api, { auto: true });
    await new Promise((r) => setTimeout(r, 0));
    expect(accounts).toEqual([undefined]);
    // The user's S twice and an automatic one meanwhile: one follow-up sync, of the shown account.
    await syncNow(api);
    await syncNow(api);
    await syncNow(api, { auto: true });
    expect(useApp.getState().message?.text).toBe('A sync is running: yours follows when it ends.');
    expect(accounts).toEqual([undefined]);
    ends[0]!();
    await first;
    await new Promise((r) => setTimeout(r, 0));
    expect(accounts).toEqual([undefined, 'a1']);
    ends[1]!();
    await new Promise((r) => setTimeout(r, 10));
    expect(accounts).toEqual([undefined, 'a1']);
    expect(useApp.getState().syncing).toBe(false);
  });
});
