// The sync suites' world on the reference deployment (FURROW_TEST_DEPLOYMENT=1, the `deploy` project): three service
// processes behind HAProxy, PostgreSQL through PgBouncer, a standby serving the listings within 1 s of lag. The
// fault switch's rules are in the database (service/store/postgres/faults.ts), so a rule the test sets through the
// balancer is used once, by whichever process meets the request: a batch answered 504 by one process is reconciled
// by the listings of the others (and of the standby, after the client's writes).
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { defaults, deployPrerequisite, down } from '../../deploy/deployment.ts';
import { upForTests } from '../../deploy/test-deployment.ts';
import { worldOn, type SyncWorld } from './sync.ts';

export async function deploymentWorld(): Promise<SyncWorld> {
  const missing = deployPrerequisite();
  if (missing) throw new Error(`The sync suites against the deployment need ${missing}`);
  const parent = mkdtempSync('/tmp/furrow-deploy-sync-');
  chmodSync(parent, 0o711); // the server's user (postgres, for root) passes through to its folders
  const dir = join(parent, 'deployment');
  const stop = async () => {
    await down(dir, { purge: true });
    rmSync(parent, { recursive: true, force: true });
  };
  try {
    const d = await upForTests({ ...defaults(dir), services: 3, durable: false, faults: true });
    const org = { organization_id: d.demo!.organization_id!, api_key: d.demo!.api_key! };
    return worldOn(parent, { url: d.url, port: d.balancer.port, stop }, org, stop);
  } catch (err) {
    await stop();
    throw err;
  }
}
