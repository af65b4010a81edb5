// Peak memory of a whole process of any kind (node or not): the command runs under GNU time, which reports the
// maximum resident set size of the process it waited for (getrusage of that child: every thread of it, worker
// threads included), in KiB, to a file of its own, so the command's own output is left as it is. The same wrapper
// on both sides of a comparison: /usr/bin/time's own few hundred KiB are never counted (its child's rusage only).
import { existsSync, readFileSync, rmSync } from 'node:fs';

const GNU_TIME = '/usr/bin/time';

export interface PeakRss {
  /** The command line to spawn instead of (cmd, argv). */
  cmd: string;
  argv: string[];
  /** The peak resident set size in KiB, once the process has exited; the report file is removed. */
  read(): number;
}

/** (cmd, argv) run under GNU time writing the peak RSS to `reportFile`. */
export function withPeakRss(cmd: string, argv: string[], reportFile: string): PeakRss {
  if (!existsSync(GNU_TIME)) throw new Error(`${GNU_TIME} (GNU time) is needed to measure peak memory: apt-get install time`);
  rmSync(reportFile, { force: true });
  return {
    cmd: GNU_TIME,
    argv: ['-f', '%M', '-o', reportFile, cmd, ...argv],
    read: () => {
      // GNU time writes "Command exited with non-zero status N" before the figure when the command failed.
      const lines = readFileSync(reportFile, 'utf8').trim().split('\n');
      rmSync(reportFile, { force: true });
      const kib = Number(lines[lines.length - 1]);
      if (!Number.isFinite(kib) || kib <= 0) throw new Error(`no peak RSS in ${reportFile}: ${lines.join(' / ')}`);
      return kib;
    },
  };
}
