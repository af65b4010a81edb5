// `npm run deploy:up [-- --services N --synchronous --read-max-lag-ms MS|off --dir DIR]`: starts the reference deployment locally
// (deploy/deployment.ts, docs/deploy.md) and prints the balancer's address and the demo credentials.
import { parseArgs } from 'node:util';
import { DEFAULT_DIR, defaults, up } from './deployment.ts';

const { values } = parseArgs({
  options: {
    dir: { type: 'string', default: process.env.FURROW_DEPLOY_DIR || DEFAULT_DIR },
    services: { type: 'string', default: '2' },
    synchronous: { type: 'boolean', default: false },
    'no-demo': { type: 'boolean', default: false },
    // The listings and the embedded map read from the standby within this lag (`off`: from the primary only).
    'read-max-lag-ms': { type: 'string', default: '1000' },
  },
});
const services = Number(values.services);
if (!Number.isInteger(services) || services < 1 || services > 16) throw new Error(`--services must be 1 to 16, not ${values.services}`);

const lag = values['read-max-lag-ms'] === 'off' ? null : Number(values['read-max-lag-ms']);
if (lag !== null && (!Number.isInteger(lag) || lag < 0)) throw new Error(`--read-max-lag-ms must be a whole number of milliseconds or off, not ${values['read-max-lag-ms']}`);

const d = await up({ ...defaults(values.dir), services, synchronous: values.synchronous, demo: !values['no-demo'], readMaxLagMs: lag });
const lines = [
  `Furrow reference deployment in ${d.dir}`,
  `  balancer (HAProxy)   ${d.url}            <- point the app and the CLI here`,
  ...d.services.map((s, i) => `  service ${i + 1}            http://127.0.0.1:${s.port}   pid ${s.pid}, log ${s.dir}/service.log`),
  `  PgBouncer            127.0.0.1:${d.bouncer.port}  (transaction mode)`,
  `  PostgreSQL primary   127.0.0.1:${d.primary.port}`,
  `  PostgreSQL standby   127.0.0.1:${d.standby.port}  (streaming, ${d.options.synchronous ? 'synchronous' : 'asynchronous'}, slot standby1; ${
    d.options.readMaxLagMs === null ? 'not read from' : `listings read from it within ${d.options.readMaxLagMs} ms of lag`})`,
  `  passwords            ${d.passfile} (0600), ${d.bouncer.dir}/userlist.txt (0600)`,
];
if (d.demo) {
  lines.push('', 'Demo organization (its API key and admin password are also in ' + `${d.dir}/demo/demo-credentials.json, 0600):`,
    `  API key        ${d.demo.api_key}`, `  account        ${d.demo.account_id}`, `  embedded map   ${d.demo.embedded_url}`,
    `  admin panel    ${d.url}/admin/  ${d.demo.admin_email} / ${d.demo.admin_password}`,
    '', `export FURROW_URL=${d.url} KEY=${d.demo.api_key} ACCOUNT=${d.demo.account_id}`);
}
// The service's own admin commands (create-org, create-admin, ...) on this deployment's database: through PgBouncer,
// the password from the same 0600 file the processes read (never on the command line).
lines.push('', 'Administer it (an organization of your own, an admin):',
  `  DATABASE_URL=${d.databaseUrl} PGPASSFILE=${d.passfile} PUBLIC_URL=${d.url} npm run -s service -- create-org --name "Your organization"`);
lines.push('', `Stop it with: npm run deploy:down${d.dir === DEFAULT_DIR ? '' : ` -- --dir ${d.dir}`}`);
console.log(lines.join('\n'));
