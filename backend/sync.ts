// Syncing (core/api-sync.ts): the counts and what needs the user, the cockpit's view of an account, sending rejected
// work again, and the sync itself — in its turn among the mirror's long jobs, its progress to the caller and, at
// most ten times a second, to every page as the `sync` event, with the change events of what it wrote so far.
import type { HandlersOf } from '../core/rpc.ts';
import type { SYNC_API } from '../core/api-sync.ts';
import { problems as problemList, statusReport } from '../sync/status.ts';
import { syncDetails } from './sync-details.ts';
import type { SyncContext } from './context.ts';

/** Progress and change events of a sync are sent at most this often. */
const EVENT_INTERVAL_MS = 100;

const syncJobs = () => import('./sync-jobs.ts');

export function syncHandlers(ctx: SyncContext): HandlersOf<typeof SYNC_API> {
  return {
    status: ({ account }) => {
      if (account !== undefined) ctx.account(account);
      return statusReport(ctx.mirror, account);
    },

    problems: ({ account }) => problemList(ctx.mirror, account),

    syncDetails: ({ account }) => {
      ctx.account(account);
      return syncDetails(ctx.mirror, account);
    },

    retry: ({ account }) => ctx.jobs.write(() => ({
      requeued: ctx.mirror.write.requeueRejected(account ?? null),
      released: ctx.mirror.write.releaseBackoff(account ?? null),
    })),

    sync: async ({ account, push = true, pull = true, acceptRemoteDeletions = false }, call) => {
      if (account !== undefined) ctx.account(account);
      const end = await ctx.jobs.turn('sync');
      let last = 0;
      let silent: string | undefined;
      try {
        const { runSync } = await syncJobs();
        return await runSync(ctx.mirror, ctx.credentials, ctx.durations(), {
          accounts: account === undefined ? undefined : [account], push, pull, acceptRemoteDeletions, signal: call.signal,
          onProgress: (p) => {
            const progress = {
              account: p.account, phase: p.phase, done: p.done, total: p.total, bytes: p.bytes, ...(p.message ? { message: p.message } : {}), ...(p.notAnswering ? { notAnswering: p.notAnswering } : {}),
            };
            call.progress(progress);
            const now = Date.now();
            // The service starting or ceasing not to answer is never left out: the page's status says it.
            const turned = p.notAnswering !== silent;
            silent = p.notAnswering;
            if (ctx.listening() && (now - last >= EVENT_INTERVAL_MS || p.phase === 'done' || turned)) {
              last = now;
              ctx.emit('sync', progress);
              ctx.flush();
            }
          },
        });
      } finally {
        end();
        ctx.flush();
      }
    },
  };
}
