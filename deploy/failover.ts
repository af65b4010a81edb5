// Failover (docs/deploy.md, "Failover"): the primary is lost, the standby becomes the primary, PgBouncer is pointed
// at it and reloaded. The service processes do nothing: their connections are to PgBouncer, which opens new server
// connections to the new primary; the requests that were in flight fail and clients retry them.
//
// `npm run deploy:failover [-- --dir DIR]` does it on the running deployment (stopping the primary first, at once,
// if it still runs: two primaries must never take writes).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_DIR, type Deployment, readDeployment, saveDeployment } from './deployment.ts';
import { bouncerPid, writeBouncerConfig } from './pgbouncer.ts';
import { adminQuery, pgStop, promote } from './postgres.ts';

/** Promotes the standby and repoints PgBouncer; the deployment has no standby afterwards (until one is rebuilt). */
export async function failover(d: Deployment): Promise<void> {
  pgStop(d.bin, d.primary, 'immediate');
  promote(d.bin, d.standby);
  for (const deadline = Date.now() + 30_000; ;) {
    const [r] = await adminQuery<{ recovery: boolean }>(d.standby, 'SELECT pg_is_in_recovery() AS recovery');
    if (!r!.recovery) break;
    if (Date.now() > deadline) throw new Error('The standby was still in recovery 30 s after pg_ctl promote');
    await new Promise((ok) => setTimeout(ok, 50));
  }
  // The same password file content, the new port; SIGHUP: PgBouncer rereads its configuration, closes its server
  // connections to the old address and opens new ones to the new primary as clients need them.
  const password = readFileSync(join(d.bouncer.dir, 'userlist.txt'), 'utf8').split('"')[3]!;
  writeBouncerConfig(d.bouncer, d.standby.port, password, 20);
  process.kill(bouncerPid(d.bouncer)!, 'SIGHUP');
  const old = d.primary;
  d.primary = d.standby;
  d.standby = old; // stopped; rebuilt from the new primary with pg_basebackup before it serves again
  d.standbyLost = true;
  saveDeployment(d);
}

/** What the operator is told after a failover: what now runs, what may be lost, and what there is no longer. */
export function failoverWords(d: Deployment): string {
  return [
    `The standby (127.0.0.1:${d.primary.port}) is the primary now; PgBouncer points at it. The old primary's folder is ${d.standby.dir}.`,
    d.options.synchronous
      ? 'Replication was synchronous: every commit the service acknowledged is on the new primary.'
      : 'Replication was asynchronous: commits the standby had not yet received when the primary was lost are gone, though the service acknowledged them. Have every device sync again (docs/deploy.md, "What asynchronous replication can lose").',
    'There is no standby now: the listings are read from the new primary, and another failover is not possible until a standby is rebuilt from it (docs/deploy.md, "Faults").',
  ].join('\n');
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const { values } = parseArgs({ options: { dir: { type: 'string', default: process.env.FURROW_DEPLOY_DIR || DEFAULT_DIR } } });
  const d = readDeployment(values.dir);
  if (!d) throw new Error(`No deployment in ${values.dir}`);
  if (d.standbyLost) throw new Error('This deployment has already failed over: it has no standby to promote');
  await failover(d);
  console.log(failoverWords(d));
}
