// The part of undici the sync engine and the tile fetcher use — its Agent with the request API, and its connector —
// loaded from undici's own modules rather than through its index: the index also evaluates fetch, WebSocket,
// EventSource, cookies, caches and the mocks at load, about 60 ms of CPU at each start of the CLI (a push's first
// request waited for it) for nothing a push calls. The same module instances as the index's (one bundle, one path
// each), so an Agent from here and one from 'undici' are the same class. Whatever else of undici is needed (the
// token requests' top-level `request`) is loaded from the index where it is used.
import type { Agent as AgentClass, Pool as PoolClass, buildConnector as BuildConnector } from 'undici';
import AgentImpl from 'undici/lib/dispatcher/agent.js';
import PoolImpl from 'undici/lib/dispatcher/pool.js';
import DispatcherImpl from 'undici/lib/dispatcher/dispatcher.js';
import api from 'undici/lib/api/index.js';
import connector from 'undici/lib/core/connect.js';

// What undici's index does at load (`Object.assign(Dispatcher.prototype, api)`): request() on every dispatcher.
// Idempotent: the index, when something loads it too, assigns the same functions again.
Object.assign((DispatcherImpl as { prototype: object }).prototype, api);

export const Agent = AgentImpl as typeof AgentClass;
export type Agent = AgentClass;
/** What an Agent makes for each origin by default (a Pool: the engine's Agent sets no `connections`). */
export const Pool = PoolImpl as typeof PoolClass;
export type Pool = PoolClass;
export const buildConnector = connector as typeof BuildConnector;
