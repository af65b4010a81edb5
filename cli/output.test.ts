// The sync's progress lines as the CLI prints them without a terminal: a line per phase, a count where it is one.
import { describe, expect, it } from 'vitest';
import { progressPrinter } from './output.ts';

const printed = (events: Parameters<ReturnType<typeof progressPrinter>['onProgress']>[0][]) => {
  let text = '';
  const p = progressPrinter({ write: (chunk: string) => { text += chunk; } });
  for (const e of events) p.onProgress(e);
  p.done();
  return text.split('\n').filter(Boolean);
};

describe('progressPrinter', () => {
  it('prints a phase as done of total, and the end as the changes acknowledged and sent, never a fraction over 1', () => {
    const account = 'acc-0123456789abcdef';
    expect(printed([
      { account, phase: 'parcels', done: 0, total: 950, bytes: 0 },
      { account, phase: 'parcels', done: 950, total: 950, bytes: 2_000_000 },
      // 1,000 acknowledged of 950 sent: 50 went with the farm's create, found on the service, not sent again.
      { account, phase: 'done', done: 1000, total: 950, bytes: 2_100_000 },
    ])).toEqual([
      'acc-01234567 parcels 0/950 0 B sent',
      'acc-01234567 parcels 950/950 1953 KB sent',
      'acc-01234567 done 1000 acknowledged, 950 sent (2051 KB)',
    ]);
  });
});
