// core/rpc.ts ports over Node's channels between processes.
import type { ChildProcess } from 'node:child_process';
import type { Port } from '../core/rpc.ts';
import { RENDERER_PORT } from '../core/host-protocol.ts';

/** Electron's channel to a utilityProcess's parent (process.parentPort; typed here: the backend never imports electron). */
export interface ParentPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (e: ParentEvent) => void): unknown;
  off(event: 'message', listener: (e: ParentEvent) => void): unknown;
}
/** A message from the parent, with the ports transferred with it (Electron's only). */
export interface ParentEvent { data: unknown; ports?: MessagePortMainLike[] }

/** Electron's parentPort when the host runs in the packaged app's utilityProcess, else none. */
export function electronParent(proc: NodeJS.Process = process): ParentPort | null {
  return (proc as NodeJS.Process & { parentPort?: ParentPort }).parentPort ?? null;
}

/**
 * The host's channel to whoever started it, in parentPort's shape: Electron's parentPort in the packaged app's
 * utilityProcess, or the IPC channel of a plain child process (browser mode, tests, the development bridge).
 */
export function parentChannel(proc: NodeJS.Process = process): ParentPort {
  const parent = electronParent(proc);
  if (parent) return parent;
  if (!proc.send) throw new Error('the mirror host needs an IPC channel to its parent (spawn it with stdio "ipc")');
  const wrapped = new Map<(e: ParentEvent) => void, (m: unknown) => void>();
  return {
    postMessage: (m) => { if (proc.connected) proc.send!(m); },
    on(_event, listener) {
      const on = (m: unknown) => listener({ data: m });
      wrapped.set(listener, on);
      proc.on('message', on);
    },
    off(_event, listener) {
      const on = wrapped.get(listener);
      if (on) proc.off('message', on);
      wrapped.delete(listener);
    },
  };
}

/** A parentPort-shaped channel as core/rpc.ts's Port (its messages' data). */
export function portOf(parent: ParentPort): Port {
  return {
    postMessage: (m) => parent.postMessage(m),
    onMessage(listener) {
      const on = (e: ParentEvent) => listener(e.data);
      parent.on('message', on);
      return () => parent.off('message', on);
    },
  };
}

/**
 * The parent's messages held from the host's first moment until it is ready (released): the host first waits for
 * its secrets (`take`), and a call, a session or a renderer's port sent meanwhile must wait, not be lost to a channel
 * nobody listened to yet. A message `take` claims is never delivered to the listeners.
 */
export interface HeldParent extends ParentPort {
  /** The first message (held or to come) whose data `pred` accepts; rejects after `ms`. */
  take<T>(pred: (data: unknown) => data is T, ms: number): Promise<T>;
  /** Delivers what was held, in order, to the listeners registered by now, and every later message as it comes. */
  release(): void;
}
export function holdParent(parent: ParentPort): HeldParent {
  const held: ParentEvent[] = [];
  const listeners = new Set<(e: ParentEvent) => void>();
  const takers: { pred: (data: unknown) => boolean; resolve(data: unknown): void }[] = [];
  let released = false;
  parent.on('message', (e) => {
    const taker = takers.findIndex((t) => t.pred(e.data));
    if (taker >= 0) {
      takers.splice(taker, 1)[0]!.resolve(e.data);
      return;
    }
    if (!released) held.push(e);
    else for (const l of [...listeners]) l(e);
  });
  return {
    postMessage: (m) => parent.postMessage(m),
    on: (_event, listener) => listeners.add(listener),
    off: (_event, listener) => listeners.delete(listener),
    take<T>(pred: (data: unknown) => data is T, ms: number): Promise<T> {
      const i = held.findIndex((e) => pred(e.data));
      if (i >= 0) return Promise.resolve(held.splice(i, 1)[0]!.data as T);
      return new Promise<T>((resolve, reject) => {
        const taker = { pred, resolve: (data: unknown) => { clearTimeout(timer); resolve(data as T); } };
        const timer = setTimeout(() => {
          takers.splice(takers.indexOf(taker), 1);
          reject(new Error(`no start message from the parent within ${ms / 1000} s`));
        }, ms);
        takers.push(taker);
      });
    },
    release() {
      released = true;
      for (const e of held.splice(0)) for (const l of [...listeners]) l(e);
    },
  };
}

/** The parent's side of that channel. */
export function childPort(child: ChildProcess): Port {
  return {
    postMessage: (m) => { if (child.connected) child.send(m as object); },
    onMessage(listener) {
      child.on('message', listener);
      return () => child.off('message', listener);
    },
  };
}

/**
 * Electron's MessagePortMain (a port main hands the host, one per renderer): messages come in an event's `data`,
 * and 'close' says the other end is gone (the page reloaded or its window closed). Typed here: no electron import.
 */
export interface MessagePortMainLike {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (e: { data: unknown }) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  off(event: 'message', listener: (e: { data: unknown }) => void): unknown;
  start(): void;
  close(): void;
}

/** A renderer's port as core/rpc.ts's Port; `onClose` once the other end has gone. */
export function messagePortMain(port: MessagePortMainLike, onClose: () => void): Port {
  port.on('close', onClose);
  return {
    postMessage: (m) => port.postMessage(m),
    onMessage(listener) {
      const on = (e: { data: unknown }) => listener(e.data);
      port.on('message', on);
      port.start(); // queued until started: a call sent before the host listened is not lost
      return () => port.off('message', on);
    },
  };
}

/** What main posts to the host with a renderer's port in its transfer list (electron/main.ts). */
export { RENDERER_PORT } from '../core/host-protocol.ts';

/**
 * The host's side of the packaged app: every renderer port main transfers on the parentPort is a session of its
 * own (`onSession` serves it and returns the function that ends it, called once the port closes). `type`: the
 * message the port comes with (RENDERER_PORT; BYTES_PORT for a bytes request's port, backend/bytes-port.ts).
 */
export function acceptRendererPorts(parent: Pick<ParentPort, 'on'>, onSession: (port: Port) => () => void, type: string = RENDERER_PORT): void {
  parent.on('message', (e) => {
    const port = e.ports?.[0];
    if ((e.data as { type?: unknown } | null)?.type !== type || !port) return;
    let end: (() => void) | null = null;
    end = onSession(messagePortMain(port, () => { end?.(); end = null; }));
  });
}

/**
 * Several rpc sessions over one process channel (a renderer port can cross to a utilityProcess, not on to a plain
 * child process: the development bridge, backend/host-bridge.ts, multiplexes them). A session's messages travel as
 * `{ furrowSession, m }`, its end as `{ furrowSession, end: true }`; core/rpc.ts ignores both (they carry no call
 * id), so the channel's own client and server go on beside them. Another kind of session has a key of its own
 * (BYTES_SESSION: a bytes request's port, backend/bytes-port.ts), so neither side mistakes one kind for the other.
 */
export const RPC_SESSION = 'furrowSession';
export const BYTES_SESSION = 'furrowBytes';
type SessionKey = typeof RPC_SESSION | typeof BYTES_SESSION;
interface Envelope { id: number; m?: unknown; end?: true }
const envelope = (v: unknown, key: SessionKey): Envelope | null => {
  if (typeof v !== 'object' || v === null) return null;
  const e = v as Record<string, unknown>;
  return Number.isSafeInteger(e[key]) ? { id: e[key] as number, m: e.m, ...(e.end === true ? { end: true } : {}) } : null;
};

/** The bridge's side: session `id` over `channel`; end() tells the host it is over. */
export function sessionPort(channel: Port, id: number, key: SessionKey = RPC_SESSION): Port & { end(): void } {
  return {
    postMessage: (m) => channel.postMessage({ [key]: id, m }),
    onMessage(listener) {
      return channel.onMessage((v) => {
        const e = envelope(v, key);
        if (e?.id === id && !e.end) listener(e.m);
      });
    },
    end: () => channel.postMessage({ [key]: id, end: true }),
  };
}

/** The host's side: each new session id on `channel` is served by `onSession`, until its end. */
export function acceptSessions(channel: Port, onSession: (port: Port) => () => void, key: SessionKey = RPC_SESSION): () => void {
  const open = new Map<number, { deliver(m: unknown): void; end(): void }>();
  const stop = channel.onMessage((v) => {
    const e = envelope(v, key);
    if (!e) return;
    const id = e.id;
    if (e.end) {
      open.get(id)?.end();
      open.delete(id);
      return;
    }
    let session = open.get(id);
    if (!session) {
      const listeners = new Set<(m: unknown) => void>();
      const end = onSession({
        postMessage: (m) => channel.postMessage({ [key]: id, m }),
        onMessage(listener) {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
      });
      session = { deliver: (m) => { for (const l of listeners) l(m); }, end };
      open.set(id, session);
    }
    session.deliver(e.m);
  });
  return () => {
    stop();
    for (const s of open.values()) s.end();
    open.clear();
  };
}

/** Joins two ports: what either receives, the other sends (the development bridge). Returns the function that stops. */
export function joinPorts(a: Port, b: Port): () => void {
  const stopA = a.onMessage((m) => b.postMessage(m));
  const stopB = b.onMessage((m) => a.postMessage(m));
  return () => { stopA(); stopB(); };
}
