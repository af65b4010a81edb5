// The first call of every session (core/api.ts hello): the host's API version, refusing a client of another.
import { RpcError, type HandlersOf } from '../core/rpc.ts';
import type { Api } from '../core/api.ts';
import { API_VERSION, ApiErrorCode } from '../core/api-codes.ts';

export function sessionHandlers(): Pick<HandlersOf<Api>, 'hello'> {
  return {
    hello: ({ apiVersion }) => {
      if (apiVersion !== API_VERSION) throw new RpcError(ApiErrorCode.versionMismatch, `This backend speaks version ${API_VERSION} of the app's API, the app ${apiVersion}: install matching versions`);
      return { apiVersion: API_VERSION, pid: process.pid };
    },
  };
}
