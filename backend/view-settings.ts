// The view's choices kept on this computer (core/api-view.ts): in the mirror's settings table, where this computer's
// other settings are (the accounts connected, their parcel limits), so that they outlive the page and its origin.
import { Value } from '@sinclair/typebox/value';
import { RpcCode, RpcError, type HandlersOf } from '../core/rpc.ts';

/** The most the view's choices may take, as JSON: far more than any real filter needs. */
export const MAX_VIEW_BYTES = 64 * 1024;
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
    saveViewSettings: (view) => {
      const json = JSON.stringify(view);
      // The schema bounds each field; the whole is bounded too (a filter of 20 keys × 100 values × 4,000 characters
      // would be 8 MB, written at every change of the view).
      if (json.length > MAX_VIEW_BYTES) {
        return Promise.reject(new RpcError(RpcCode.invalidArguments, `The view's choices take ${json.length.toLocaleString('en-US')} characters: at most ${MAX_VIEW_BYTES.toLocaleString('en-US')} are kept`));
      }
      return ctx.jobs.write(() => {
        ctx.mirror.write.setViewSettings(json);
        return null;
      });
    },
  };
}
