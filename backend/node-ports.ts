// core/rpc.ts ports over Node's channels between processes.
import type { ChildProcess } from 'node:child_process';
import type { Port } from '../core/rpc.ts';

/** Electron's channel to a utilityProcess's parent (process.parentPort; typed here: the backend never imports electron). */
interface ParentPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (e: { data: unknown }) => void): unknown;
  off(event: 'message', listener: (e: { data: unknown }) => void): unknown;
}

/** Electron's parentPort when the host runs in the packaged app's utilityProcess, else none. */
export function electronParent(proc: NodeJS.Process = process): ParentPort | null {
  return (proc as NodeJS.Process & { parentPort?: ParentPort }).parentPort ?? null;
}

/**
 * The host's side of its channel: an IPC channel when spawned as a plain child process (browser mode, tests, the
 * CLI), or Electron's parentPort in the packaged app's utilityProcess.
 */
export function processPort(proc: NodeJS.Process = process): Port {
  const parent = electronParent(proc);
  if (parent) {
    return {
      postMessage: (m) => parent.postMessage(m),
      onMessage(listener) {
        const on = (e: { data: unknown }) => listener(e.data);
        parent.on('message', on);
        return () => parent.off('message', on);
      },
    };
  }
  if (!proc.send) throw new Error('the mirror host needs an IPC channel to its parent (spawn it with stdio "ipc")');
  return {
    postMessage: (m) => { if (proc.connected) proc.send!(m); },
    onMessage(listener) {
      proc.on('message', listener);
      return () => proc.off('message', listener);
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
