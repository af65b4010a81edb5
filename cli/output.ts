import type { ProgressEvent } from '../sync/progress.ts';

/** Where the CLI writes: a process stream, or a buffer in tests. */
export interface OutStream { write(chunk: string): unknown; isTTY?: boolean }

/** One progress report: what is going on (`label`), how far (`done` of `total`, 0: unknown), and a detail. */
interface Report { label: string; done: number; total: number; detail: string }

/**
 * A progress bar on a terminal, plain lines otherwise: one per label change, every ~10 %, or when a report without
 * a count says something new (a wait and its reason).
 */
function reportPrinter(stream: OutStream): { report: (r: Report) => void; done: () => void } {
  const tty = Boolean(stream.isTTY);
  let lastLine = '';
  let lastPct = -1;
  let lastLabel = '';
  let lastDetail = '';
  return {
    report({ label, done, total, detail }) {
      if (tty) {
        const width = 24;
        const frac = total > 0 ? Math.min(1, done / total) : 0;
        const bar = total > 0 ? `[${'#'.repeat(Math.round(frac * width)).padEnd(width, '.')}] ${done}/${total}` : '';
        const line = `${label.padEnd(22)} ${bar} ${detail}`;
        stream.write(`\r${line.padEnd(Math.max(lastLine.length, line.length))}`);
        lastLine = line;
        return;
      }
      const pct = total > 0 ? Math.floor((done / total) * 10) : -1;
      if (label !== lastLabel || (pct !== lastPct && pct >= 0) || (total === 0 && detail !== lastDetail)) {
        stream.write(`${label}${total > 0 ? ` ${done}/${total}` : ''}${detail ? ` ${detail}` : ''}\n`);
        lastLabel = label;
        lastPct = pct;
        lastDetail = detail;
      }
    },
    done() {
      if (tty && lastLine) stream.write('\n');
      lastLine = '';
    },
  };
}

const sent = (bytes: number) => (bytes < 10_240 ? `${bytes} B sent` : bytes < 10_485_760 ? `${(bytes / 1024).toFixed(0)} KB sent` : `${(bytes / 1048576).toFixed(1)} MB sent`);

/** A sync's progress: per account and phase, the bytes sent, and what a wait is for. */
export function progressPrinter(stream: OutStream = process.stderr): { onProgress: (e: ProgressEvent) => void; done: () => void } {
  const p = reportPrinter(stream);
  return {
    onProgress: (e) => p.report(e.phase === 'done'
      // The end's counts are not a fraction: changes acknowledged include those found on the service after an
      // uncertain answer (never sent again), and changes sent include resends, so "1000/950" or "3001/5451" misled.
      ? { label: `${e.account.slice(0, 12)} done`, done: 0, total: 0, detail: `${e.done} acknowledged, ${e.total} sent (${sent(e.bytes).replace(/ sent$/, '')})` }
      : { label: `${e.account.slice(0, 12)} ${e.phase}`, done: e.done, total: e.total, detail: `${sent(e.bytes)}${e.message ? ` — ${e.message}` : ''}` }),
    done: p.done,
  };
}

/**
 * An import's progress: parcels read and checked with the service's rules. Never "imported": the whole file is one
 * transaction, and nothing is imported until it commits (the command's last line says so, or why nothing was).
 */
export function importPrinter(stream: OutStream, file: string): { onProgress: (done: number, total: number) => void; done: () => void } {
  const p = reportPrinter(stream);
  return {
    onProgress: (done, total) => p.report({ label: `import ${file}: checked`, done, total, detail: 'parcels' }),
    done: p.done,
  };
}

/** A layer file's copy into the app's folder: megabytes copied (nothing for a file copied in a moment, under 8 MB). */
export function copyPrinter(stream: OutStream, file: string): { onProgress: (done: number, total: number) => void; done: () => void } {
  const p = reportPrinter(stream);
  const mb = (n: number) => Math.round(n / 1048576);
  return {
    onProgress: (done, total) => { if (total >= 8 * 1048576) p.report({ label: `copy ${file}`, done: mb(done), total: mb(total), detail: 'MB' }); },
    done: p.done,
  };
}
