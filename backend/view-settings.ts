// The view's choices kept on this computer (core/api-view.ts): in the mirror's settings table, where this computer's
// other settings are (the accounts connected, their parcel limits), so that they outlive the page and its origin.
import { Value } from '@sinclair/typebox/value';
import type { HandlersOf } from '../core/rpc.ts';
import { ViewSettings, type VIEW_API } from '../core/api-view.ts';
import type { HostContext } from './context.ts';

export function viewHandlers(ctx: HostContext): HandlersOf<typeof VIEW_API> {
  return {
    viewSettings: () => {
      const json = ctx.mirror.write.viewSettings();
      if (json === null) return null;
      try {
        const v: unknown = JSON.parse(json);
        // Kept by an older version, or edited by hand: unused rather than trusted.
        return Value.Check(ViewSettings, v) ? v : null;
      } catch {
        return null;
      }
    },
    saveViewSettings: (view) => ctx.jobs.write(() => {
      ctx.mirror.write.setViewSettings(JSON.stringify(view));
      return null;
    }),
  };
}
