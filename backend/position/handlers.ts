// core/api-position.ts over backend/position/position.ts: the source of position, its state, the system's location
// the page reports, and the walk under way.
import { RpcError, type HandlersOf } from '../../core/rpc.ts';
import { ApiErrorCode } from '../../core/api-codes.ts';
import type { POSITION_API } from '../../core/api-position.ts';
import type { HostContext } from '../context.ts';
import type { Position } from './position.ts';

export function positionHandlers(ctx: HostContext, position: Position): HandlersOf<typeof POSITION_API> {
  return {
    positionPorts: () => position.ports.list(),
    positionConnect: ({ source }) => position.connect(source),
    positionConnectPath: ({ path, baud }) => position.connectPath(path, baud),
    positionDisconnect: () => position.disconnect(),
    positionState: () => position.current(),
    positionReport: ({ fix }) => { position.report(fix); return null; },
    trackStart: ({ account, farm, settings }) => {
      ctx.account(account);
      const f = ctx.farm(farm);
      // A farm of another account would put the walked parcel where its account cannot save it.
      if (f.account_id !== account) throw new RpcError(ApiErrorCode.notFound, `No farm ${farm} in account ${account}`);
      return position.track.start(account, farm, settings);
    },
    trackPause: () => position.track.pause(),
    trackResume: () => position.track.resume(),
    trackCurrent: () => position.track.current(),
    trackDiscard: () => { position.track.discard(); return null; },
  };
}

/** A page session's own: its receivers on the network within the host's limit (backend/position/target-limit.ts). */
export function positionPageHandlers(position: Position): Pick<HandlersOf<typeof POSITION_API>, 'positionConnect'> {
  return { positionConnect: ({ source }) => position.connect(source, true) };
}
