// `npm run deploy:down [-- --keep --dir DIR]`: stops the reference deployment and deletes its folder (its databases
// with it); --keep stops everything but keeps the folder, logs and data to look at.
import { parseArgs } from 'node:util';
import { DEFAULT_DIR, down, readDeployment } from './deployment.ts';

const { values } = parseArgs({
  options: { dir: { type: 'string', default: process.env.FURROW_DEPLOY_DIR || DEFAULT_DIR }, keep: { type: 'boolean', default: false } },
});
const known = readDeployment(values.dir) !== null;
await down(values.dir, { purge: !values.keep });
console.log(known ? `Stopped the deployment in ${values.dir}${values.keep ? ' (folder kept)' : ' and deleted it'}.` : `No deployment in ${values.dir}.`);
