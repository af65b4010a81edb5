// `npm run service`: the parcel service from built JavaScript (dist/service.mjs), rebuilt first when a source changed
// since the last build (scripts/build.mjs). service/cli.ts runs its command when loaded.
import { ensureBuilt } from './build.mjs';

await import(await ensureBuilt('service'));
