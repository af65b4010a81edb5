// The change feed's cost to one account's concurrent writers on PostgreSQL, without HTTP: migration 003 numbered
// changes from a counter row per account, locked by each committing writer until its commit (WAL flush included)
// had ended, so one account's commits queued one behind the other; migration 004 numbers them from a sequence with no
// lock between writers. The same store code on a database migrated to 3 and one migrated to 4, alternated in pairs.
import { parseArgs } from 'node:util';
import { loadavg } from 'node:os';
import {
  createDatabase, findBinaries, missingPrerequisite, newCluster, prepareTemplate, startCluster, stopCluster, PG_PACKAGES,
} from '../platform/node/pg-server.ts';
import { migratePg } from '../service/store/postgres/migrate.ts';
import { openPgPool } from '../service/store/postgres/pool.ts';
import { pgStore } from '../service/store/postgres/index.ts';
import { insertOrganization, newAccount } from '../service/store/postgres/test-tenants.ts';
import type { Scope } from '../service/store/scope.ts';
import { pairStats } from './lib/pairs.ts';
import { metric, startResult, writeResult } from './lib/result.ts';

const { values: args } = parseArgs({
  options: {
    pairs: { type: 'string', default: '5' },
    writers: { type: 'string', default: '8' },
    commits: { type: 'string', default: '150' },
  },
});
const PAIRS = Number(args.pairs);
const WRITERS = Number(args.writers);
const COMMITS = Number(args.commits);

const bin = findBinaries();
const missing = missingPrerequisite(bin);
if (!bin || missing) throw new Error(`${missing}: apt-get install ${PG_PACKAGES}`);
const record = startResult('pg-feed-commits', "PostgreSQL: one account's concurrent commits with the change feed, counter row (migration 003) against sequence (004)",
  `npm run bench -- pg-feed-commits${PAIRS !== 5 ? ` --pairs ${PAIRS}` : ''}`);
const c = newCluster('furrow-bench-pgc-', bin);
let dbs = 0;

/** Commits per second of WRITERS connections of one account, each renaming its own farm COMMITS times. */
async function run(schema: 3 | 4): Promise<number> {
  const pool = openPgPool(await createDatabase(c, `furrow_feed_${process.pid}_${++dbs}`), { max: WRITERS + 2 });
  try {
    await migratePg(pool, { upTo: schema });
    await insertOrganization(pool, { id: 'org', name: 'Org', created: '2024-01-01T00:00:00.000Z' });
    await newAccount(pool, 'org', 'acc');
    const store = pgStore(pool, async () => {});
    const scope: Scope = { organizationId: 'org', accountId: 'acc', via: 'api_key' };
    const farms = await Promise.all(Array.from({ length: WRITERS }, (_, i) => store.farms.create(scope, `F${i}`, [])));
    const t0 = performance.now();
    await Promise.all(farms.map(async (f, w) => {
      for (let i = 0; i < COMMITS; i++) await store.farms.rename(scope, f.farm.id, `F${w} v${i}`);
    }));
    const rate = Math.round((WRITERS * COMMITS) / ((performance.now() - t0) / 1000));
    // Every rename reached the feed's table, numbered.
    const numbered = Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM changes WHERE seq IS NOT NULL')).rows[0]!.n);
    if (numbered !== WRITERS) throw new Error(`${numbered} numbered change rows, expected ${WRITERS}`);
    return rate;
  } finally {
    await pool.end();
  }
}

const old: number[] = [];
const seq: number[] = [];
const rows: (string | number)[][] = [];
try {
  startCluster(c, { durable: true, maxConnections: 100 });
  await prepareTemplate(c);
  for (let p = 0; p < PAIRS; p++) {
    const first = p % 2 === 0 ? 3 : 4;
    const r: Record<number, number> = {};
    for (const schema of first === 3 ? [3, 4] as const : [4, 3] as const) r[schema] = await run(schema);
    old.push(r[3]!);
    seq.push(r[4]!);
    rows.push([p + 1, first, r[3]!, r[4]!, Math.round((r[4]! / r[3]!) * 1000) / 1000, loadavg()[0]!.toFixed(1)]);
    process.stderr.write(`  pair ${p + 1}: migration 003 ${r[3]} commits/s, 004 ${r[4]} commits/s\n`);
  }
} finally {
  stopCluster(c);
}
const s = pairStats(seq, old);
writeResult(record.finish({
  method: [
    `A PostgreSQL 15 cluster made for the run (initdb in a temporary directory, Unix socket), its defaults kept: fsync and synchronous_commit on, so every commit waits for its WAL flush. Each run gets a fresh database migrated to version 3 (the feed numbered from a counter row per account) or 4 (from a sequence, migration 004), one organization, one account and ${WRITERS} farms.`,
    `${WRITERS} connections of the store's pool, each renaming its own farm ${COMMITS} times with the store's farms.rename (one transaction and one change of the feed each); the rate is all commits over the wall time. No HTTP, no service process: the writers' queue at the counter is what is measured.`,
    `${PAIRS} pairs, the order alternated; the ratio is the median of the per-pair ratios (004 ÷ 003), with its spread. Afterwards each farm's change row must be numbered.`,
  ],
  metrics: [
    metric(`Commits/s of one account's ${WRITERS} writers, migration 004 ÷ 003 (median pair ratio)`, s.median, '×', { op: '>=', value: 1 }),
    metric('Pair ratio, lowest', s.min, '×'),
    metric('Pair ratio, highest', s.max, '×'),
  ],
  tables: [{ title: 'Every pair', columns: ['pair', 'first (migration)', '003 commits/s', '004 commits/s', 'ratio', 'load (1 min)'], rows }],
  notes: [
    'The load average is the machine\'s, shared with other work: compare the ratio, not the rates, across runs.',
  ],
  details: {},
}));
