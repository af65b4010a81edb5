// One typed contract between two processes, proxied both ways (as VS Code's ProxyChannel): the client gets one
// function per method of the contract and the server dispatches each call to the handler of the same name, so no
// side ever switches over message names. Calls carry ids, can be cancelled, report progress; the server also
// sends events, declared like methods and delivered by name. Only plain JSON crosses the port. Pure: the port is given (a MessagePort, an Electron
// MessagePortMain, a child process's IPC, a WebSocket), and runs in the renderer as well as in Node.
import type { Static, TSchema } from '@sinclair/typebox';

/** Anything that carries messages both ways: postMessage and a listener, MessagePort-style. */
export interface Port {
  postMessage(message: unknown): void;
  /** Starts listening; returns the function that stops. */
  onMessage(listener: (message: unknown) => void): () => void;
}

/**
 * Who may call a method. 'page': a page of the app (a browser tab, an Electron window's renderer), which may run
 * code the user never wrote (an XSS, a bad dependency) and so gets only what a page needs: never a filesystem path,
 * never a command. 'cli': the user's own processes (the CLI, the launcher that started the host, tests).
 */
export type Caller = 'page' | 'cli';
export const PAGE_AND_CLI = ['page', 'cli'] as const satisfies readonly Caller[];
export const CLI_ONLY = ['cli'] as const satisfies readonly Caller[];
export const PAGE_ONLY = ['page'] as const satisfies readonly Caller[];

export interface MethodSpec {
  args: TSchema;
  result: TSchema;
  /** What a long-running method reports while it runs (sync, import, export). */
  progress?: TSchema;
  description: string;
  /** Who may call it; the server refuses anyone else (RpcCode.forbidden) before it looks at the arguments. */
  callers: readonly Caller[];
}
export type Contract = Record<string, MethodSpec>;

/** An event the server sends, declared like a method: its payload and who receives it. */
export interface EventSpec {
  payload: TSchema;
  description: string;
  /** The sessions it goes to; others never see it. */
  callers: readonly Caller[];
}
export type EventContract = Record<string, EventSpec>;
export type PayloadOf<E extends EventContract, K extends keyof E> = Static<E[K]['payload']>;
/** A listener per event name, as the client delivers them. */
export type EventListener<E extends EventContract, K extends keyof E> = (payload: PayloadOf<E, K>) => void;

type ProgressOf<S extends MethodSpec> = S['progress'] extends TSchema ? Static<S['progress']> : never;
export interface CallOptions<P = unknown> {
  /** Aborting it sends a cancel: the server's handler sees its signal aborted and settles (code 'cancelled'). */
  signal?: AbortSignal;
  onProgress?: (progress: P) => void;
}
export type ClientOf<C extends Contract> = {
  [M in keyof C]: (args: Static<C[M]['args']>, opts?: CallOptions<ProgressOf<C[M]>>) => Promise<Static<C[M]['result']>>;
};
export interface CallContext<P = unknown> {
  signal: AbortSignal;
  progress(progress: P): void;
}
/** What a JsonItems answer carries over the port: the plain members, and the lists given as JSON texts per item. */
interface JsonParts { value: Record<string, unknown> | null; lists: Record<string, string[]> }

/**
 * A result whose lists the handler already holds as JSON texts, one per item (a map's features, written by SQLite
 * around the JSON the mirror stores): sent as texts and parsed once, by the client, item by item. Parsing them into
 * objects in the server only to serialize them again for the port was most of a viewport's time. One text per item
 * rather than one for the whole answer: V8 puts a string over 128 KiB in pages of its own, fresh from the kernel,
 * and on a virtual machine their page faults made every copy of a 500 KB answer (SQLite's result, the message, the
 * client's copy) cost 2–3 ms where the same bytes as short strings cost 0.1 ms.
 */
export class JsonItems<T> {
  declare readonly of?: T;
  private constructor(readonly parts: JsonParts) {}
  /** An array, each item given as its JSON text. */
  static array<I>(items: string[]): JsonItems<I[]> {
    return new JsonItems<I[]>({ value: null, lists: { '': items } });
  }
  /** An object: its plain members, and members that are arrays with each item given as its JSON text. */
  static object<T extends object>(value: Partial<T>, lists: { [K in keyof T]?: string[] }): JsonItems<T> {
    return new JsonItems<T>({ value: value as Record<string, unknown>, lists: lists as Record<string, string[]> });
  }
}

/** The value JsonItems parts stand for; throws when an item is not JSON or the parts are malformed. */
function fromParts(p: JsonParts): unknown {
  if (!isObject(p) || !isObject(p.lists) || (p.value !== null && !isObject(p.value))) throw new Error('malformed parts');
  const list = (items: unknown) => {
    if (!Array.isArray(items)) throw new Error('malformed parts');
    return items.map((t) => JSON.parse(String(t)) as unknown);
  };
  if (p.value === null) return list(p.lists['']);
  const out: Record<string, unknown> = { ...p.value };
  for (const k of Object.keys(p.lists)) out[k] = list(p.lists[k]);
  return out;
}

type Answer<T> = T | JsonItems<T>;
/**
 * A message as one JSON text, for a transport that carries text (a WebSocket): a result given as JsonItems is
 * written as a plain result with its items' texts spliced in as they are (each already JSON), so the receiver parses
 * every byte once, instead of a message of escaped texts and then each text again. The items are the host's own
 * JSON (written by SQLite around JSON the mirror validated when it stored it).
 */
export function messageText(message: unknown): string {
  const m = message as Message;
  if (!isObject(m) || m.t !== 'result' || m.json === undefined) return JSON.stringify(message);
  const { value, lists } = m.json;
  const list = (items: readonly string[] | undefined) => `[${(items ?? []).join(',')}]`;
  let text: string;
  if (value === null) text = list(lists['']);
  else {
    const members = Object.keys(lists).map((k) => `${JSON.stringify(k)}:${list(lists[k])}`);
    const plain = JSON.stringify(value);
    // A list named as a plain member replaces it, as fromParts does (JSON.parse keeps the last of equal keys).
    text = members.length ? `${plain.slice(0, -1)}${plain === '{}' ? '' : ','}${members.join(',')}}` : plain;
  }
  return `{"t":"result","id":${m.id},"value":${text}}`;
}

export type HandlersOf<C extends Contract> = {
  [M in keyof C]: (args: Static<C[M]['args']>, ctx: CallContext<ProgressOf<C[M]>>) => Promise<Answer<Static<C[M]['result']>>> | Answer<Static<C[M]['result']>>;
};

/** Codes of the failures the channel itself produces; handlers add their own (core/api.ts ApiErrorCode). */
export const RpcCode = {
  unknownMethod: 'unknown_method',
  forbidden: 'forbidden',
  invalidArguments: 'invalid_arguments',
  cancelled: 'cancelled',
  disconnected: 'disconnected',
  versionMismatch: 'version_mismatch',
  internal: 'internal_error',
} as const;

/** A failed call, with a stable code to branch on and a message for people. */
export class RpcError extends Error {
  constructor(readonly code: string, message: string, readonly details?: unknown) {
    super(message);
    this.name = 'RpcError';
  }
}

type Message =
  | { t: 'call'; id: number; method: string; args: unknown }
  | { t: 'cancel'; id: number }
  | { t: 'progress'; id: number; progress: unknown }
  | { t: 'result'; id: number; value: unknown; json?: undefined }
  | { t: 'result'; id: number; json: JsonParts; value?: undefined }
  | { t: 'error'; id: number; code: string; message: string; details?: unknown }
  | { t: 'event'; name: string; payload: unknown };

/** An object (not null): what a message off a port must be before any of its members is read. */
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;

export interface Client<C extends Contract, E extends EventContract> {
  api: ClientOf<C>;
  /** Listens to one of the server's events, by its name; returns the function that stops. */
  on<K extends keyof E & string>(name: K, listener: EventListener<E, K>): () => void;
  /** Rejects every call still waiting (code 'disconnected') and stops listening. */
  close(reason?: string): void;
}

/**
 * The client of `contract` on `port`, with the server's `events` delivered by name to their listeners (an event the
 * contract does not declare is dropped).
 */
export function createClient<C extends Contract, E extends EventContract>(contract: C, port: Port, events: E): Client<C, E> {
  let next = 0;
  let closed: string | null = null;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void; onProgress?: (p: unknown) => void; done(): void }>();
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const stop = port.onMessage((raw) => {
    if (!isObject(raw)) return;
    const m = raw as Message;
    if (m.t === 'event') {
      if (typeof m.name !== 'string' || !Object.hasOwn(events, m.name)) return;
      for (const l of [...(listeners.get(m.name) ?? [])]) l(m.payload);
      return;
    }
    if (!('id' in m) || !isId(m.id)) return;
    const call = pending.get(m.id);
    if (!call) return;
    if (m.t === 'progress') call.onProgress?.(m.progress);
    else if (m.t === 'result') {
      call.done();
      if (m.json === undefined) call.resolve(m.value);
      else {
        try {
          call.resolve(fromParts(m.json));
        } catch {
          call.reject(new RpcError(RpcCode.internal, 'the answer was not JSON'));
        }
      }
    }
    else if (m.t === 'error') { call.done(); call.reject(new RpcError(String(m.code), String(m.message), m.details)); }
  });
  const invoke = (method: string, args: unknown, opts: CallOptions = {}): Promise<unknown> => {
    if (closed !== null) return Promise.reject(new RpcError(RpcCode.disconnected, closed));
    if (opts.signal?.aborted) return Promise.reject(new RpcError(RpcCode.cancelled, 'cancelled before it was sent'));
    const id = ++next;
    return new Promise((resolve, reject) => {
      const onAbort = () => port.postMessage({ t: 'cancel', id } satisfies Message);
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      pending.set(id, { resolve, reject, onProgress: opts.onProgress, done: () => { pending.delete(id); opts.signal?.removeEventListener('abort', onAbort); } });
      port.postMessage({ t: 'call', id, method, args } satisfies Message);
    });
  };
  const api = {} as Record<string, (args: unknown, opts?: CallOptions) => Promise<unknown>>;
  for (const method of Object.keys(contract)) api[method] = (args, opts) => invoke(method, args, opts);
  return {
    api: api as ClientOf<C>,
    on(name, listener) {
      const set = listeners.get(name) ?? new Set();
      listeners.set(name, set);
      set.add(listener as (payload: unknown) => void);
      return () => { set.delete(listener as (payload: unknown) => void); };
    },
    close(reason = 'the connection to the backend was closed') {
      if (closed !== null) return;
      closed = reason;
      stop();
      for (const [, call] of pending) { call.done(); call.reject(new RpcError(RpcCode.disconnected, reason)); }
    },
  };
}

/**
 * The handlers called in the same process, through the client's own interface (the CLI: nothing to cross). Answers
 * given as JsonItems are parsed, as the remote client does; a contract's method names are not needed, so a caller
 * need not load the contract's schemas.
 */
export function inProcess<C extends Contract>(handlers: HandlersOf<C>): ClientOf<C> {
  const h = handlers as Record<string, (args: unknown, ctx: CallContext) => unknown>;
  return new Proxy({} as ClientOf<C>, {
    get: (_, method) => async (args: unknown, opts: CallOptions = {}) => {
      if (typeof method !== 'string' || !Object.hasOwn(h, method)) throw new RpcError(RpcCode.unknownMethod, `No method '${String(method)}'`);
      const signal = opts.signal ?? new AbortController().signal;
      const value = await h[method]!.call(handlers, args, { signal, progress: (p) => opts.onProgress?.(p) });
      return value instanceof JsonItems ? fromParts(value.parts) : value;
    },
  });
}

export interface ServeOptions<E extends EventContract> {
  /** Who is at the other end of the port: a method whose `callers` lacks it is refused, an event it is not for never sent. */
  caller: Caller;
  /** The events this server may send. */
  events: E;
  /** Problems of `value` against `schema` (none: valid). Given by the server's runtime (a compiled TypeBox check in Node). */
  check(schema: TSchema, value: unknown): string[];
  /** Turns what a handler threw into a coded error; the default keeps RpcErrors and calls the rest internal. */
  toError?(err: unknown): RpcError;
}

export interface Server<E extends EventContract> {
  /** Sends event `name` when this session's caller is one of the event's (else nothing). */
  emit<K extends keyof E & string>(name: K, payload: PayloadOf<E, K>): void;
  /** Aborts every call still running and stops listening. */
  close(): void;
}

/** What a handler threw as a coded error: RpcErrors kept, anything else internal with its message (serve's default). */
export const defaultToError = (err: unknown): RpcError => (err instanceof RpcError ? err : new RpcError(RpcCode.internal, err instanceof Error ? err.message : String(err)));

/** Answers calls on `port` with `handlers`: arguments are checked against the contract before a handler runs. */
export function serve<C extends Contract, E extends EventContract>(contract: C, port: Port, handlers: HandlersOf<C>, opts: ServeOptions<E>): Server<E> {
  const running = new Map<number, AbortController>();
  const toError = opts.toError ?? defaultToError;
  const fail = (id: number, e: RpcError) => port.postMessage({ t: 'error', id, code: e.code, message: e.message, ...(e.details !== undefined ? { details: e.details } : {}) } satisfies Message);
  const stop = port.onMessage((raw) => {
    if (!isObject(raw) || !isId(raw.id)) return;
    const m = raw as Message;
    if (m.t === 'cancel') {
      running.get(m.id)?.abort();
      return;
    }
    if (m.t !== 'call' || running.has(m.id)) return;
    // Own methods of the contract only: 'constructor', '__proto__' and the like are unknown.
    const spec = typeof m.method === 'string' && Object.hasOwn(contract, m.method) ? contract[m.method] : undefined;
    if (!spec) {
      fail(m.id, new RpcError(RpcCode.unknownMethod, `No method '${String(m.method).slice(0, 100)}' in this version of the API`));
      return;
    }
    if (!spec.callers.includes(opts.caller)) {
      fail(m.id, new RpcError(RpcCode.forbidden, `'${m.method}' is not available to ${opts.caller === 'page' ? "the app's page" : 'this caller'}: it is for ${spec.callers.map((c) => (c === 'cli' ? 'the command line' : "the app's page")).join(' and ')} only`));
      return;
    }
    const problems = opts.check(spec.args, m.args);
    if (problems.length) {
      fail(m.id, new RpcError(RpcCode.invalidArguments, `${m.method}: ${problems.slice(0, 3).join('; ')}`, problems));
      return;
    }
    const controller = new AbortController();
    running.set(m.id, controller);
    const ctx: CallContext = { signal: controller.signal, progress: (p) => { if (running.has(m.id)) port.postMessage({ t: 'progress', id: m.id, progress: p } satisfies Message); } };
    const handler = (handlers as Record<string, (args: unknown, ctx: CallContext) => unknown>)[m.method]!;
    Promise.resolve()
      .then(() => handler.call(handlers, m.args, ctx))
      .then((value) => port.postMessage((value instanceof JsonItems ? { t: 'result', id: m.id, json: value.parts } : { t: 'result', id: m.id, value: value === undefined ? null : value }) satisfies Message),
        (err: unknown) => fail(m.id, controller.signal.aborted && !(err instanceof RpcError) ? new RpcError(RpcCode.cancelled, 'cancelled') : toError(err)))
      .finally(() => running.delete(m.id));
  });
  return {
    emit(name, payload) {
      if (Object.hasOwn(opts.events, name) && opts.events[name]!.callers.includes(opts.caller)) port.postMessage({ t: 'event', name, payload } satisfies Message);
    },
    close() {
      stop();
      for (const c of running.values()) c.abort();
      running.clear();
    },
  };
}
