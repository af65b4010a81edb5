// The edit history (core/api-history.ts): undo and redo per account (or across all), kept in the mirror, so they
// survive a restart; each a write with its change events.
import type { HandlersOf } from '../core/rpc.ts';
import type { HISTORY_API } from '../core/api-history.ts';
import type { HostContext } from './context.ts';

export function historyHandlers(ctx: HostContext): HandlersOf<typeof HISTORY_API> {
  const known = (account: string | undefined) => { if (account !== undefined) ctx.account(account); };
  return {
    history: ({ account }) => {
      known(account);
      return ctx.mirror.read.history(account);
    },
    undo: ({ account }) => {
      known(account);
      return ctx.jobs.write(() => ctx.mirror.write.undo(account));
    },
    redo: ({ account }) => {
      known(account);
      return ctx.jobs.write(() => ctx.mirror.write.redo(account));
    },
  };
}
