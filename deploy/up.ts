// `npm run deploy:up [-- --services N --synchronous --dir DIR]`: starts the reference deployment locally
// (deploy/deployment.ts, docs/deploy.md) and prints the balancer's address and the demo credentials.
import { parseArgs } from 'node:util';
import { DEFAULT_DIR, defaults, up } from './deployment.ts';

const { values } = parseArgs({
  options: {
    dir: { type: 'string', default: process.env.FURROW_DEPLOY_DIR || DEFAULT_DIR },
    services: { type: 'string', default: '2' },
    synchronous: { type: 'boolean', default: false },
    'no-demo': { type: 'boolean', default: false },
  },
});
const services = Number(values.services);
if (!Number.isInteger(services) || services < 1 || services > 16) throw new Error(`--services must be 1 to 16, not ${values.services}`);

const d = await up({ ...defaults(values.dir), services, synchronous: values.synchronous, demo: !values['no-demo'] });
const lines = [
  `Furrow reference deployment in ${d.dir}`,
  `  balancer (HAProxy)   ${d.url}            <- point the app and the CLI here`,
  ...d.services.map((s, i) => `  service ${i + 1}            http://127.0.0.1:${s.port}   pid ${s.pid}, log ${s.dir}/service.log`),
  `  PgBouncer            127.0.0.1:${d.bouncer.port}  (transaction mode)`,
  `  PostgreSQL primary   127.0.0.1:${d.primary.port}`,
  `  PostgreSQL standby   127.0.0.1:${d.standby.port}  (streaming, ${d.options.synchronous ? 'synchronous' : 'asynchronous'}, slot standby1)`,
  `  passwords            ${d.passfile} (0600), ${d.bouncer.dir}/userlist.txt (0600)`,
];
if (d.demo) {
  lines.push('', 'Demo organization (its API key and admin password are also in ' + `${d.dir}/demo/demo-credentials.json, 0600):`,
    `  API key        ${d.demo.api_key}`, `  account        ${d.demo.account_id}`, `  embedded map   ${d.demo.embedded_url}`,
    `  admin panel    ${d.url}/admin/  ${d.demo.admin_email} / ${d.demo.admin_password}`,
    '', `export FURROW_URL=${d.url} KEY=${d.demo.api_key} ACCOUNT=${d.demo.account_id}`);
}
lines.push('', `Stop it with: npm run deploy:down${d.dir === DEFAULT_DIR ? '' : ` -- --dir ${d.dir}`}`);
console.log(lines.join('\n'));
