// core/rpc.ts ports over Node's channels between processes.
import type { ChildProcess } from 'node:child_process';
import type { Port } from '../core/rpc.ts';

/** The host's side when it was spawned with an IPC channel (a plain child process: browser mode, tests, the CLI). */
export function processPort(proc: NodeJS.Process = process): Port {
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
