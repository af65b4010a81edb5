import type { ProgressEvent } from './progress.ts';

/** Where the CLI writes: a process stream, or a buffer in tests. */
export interface OutStream { write(chunk: string): unknown; isTTY?: boolean }

/** A progress bar on a terminal, plain lines (one per phase change or every ~10 %) otherwise. */
export function progressPrinter(stream: OutStream = process.stderr): { onProgress: (e: ProgressEvent) => void; done: () => void } {
  const tty = Boolean(stream.isTTY);
  let lastLine = '';
  let lastPct = -1;
  let lastPhase = '';
  return {
    onProgress(e) {
      const label = `${e.account.slice(0, 12)} ${e.phase}`;
      const kb = e.bytes < 10_240 ? `${e.bytes} B sent` : e.bytes < 10_485_760 ? `${(e.bytes / 1024).toFixed(0)} KB sent` : `${(e.bytes / 1048576).toFixed(1)} MB sent`;
      if (tty) {
        const width = 24;
        const frac = e.total > 0 ? Math.min(1, e.done / e.total) : 0;
        const bar = e.total > 0 ? `[${'#'.repeat(Math.round(frac * width)).padEnd(width, '.')}] ${e.done}/${e.total}` : '';
        const line = `${label.padEnd(22)} ${bar} ${kb}${e.message ? ` ${e.message}` : ''}`;
        stream.write(`\r${line.padEnd(Math.max(lastLine.length, line.length))}`);
        lastLine = line;
        return;
      }
      const pct = e.total > 0 ? Math.floor((e.done / e.total) * 10) : -1;
      if (e.phase !== lastPhase || (pct !== lastPct && pct >= 0)) {
        stream.write(`${label}${e.total > 0 ? ` ${e.done}/${e.total}` : ''} ${kb}${e.message ? ` — ${e.message}` : ''}\n`);
        lastPhase = e.phase;
        lastPct = pct;
      }
    },
    done() {
      if (tty && lastLine) stream.write('\n');
      lastLine = '';
    },
  };
}
