import { buildApp } from './app.ts';
import { configFromEnv, type ServiceConfig } from './config.ts';

/**
 * Listens on HOST:PORT with data in DATA_DIR; stops cleanly on SIGINT, SIGTERM and SIGHUP (its terminal closed), and
 * — when started with an IPC channel — once its parent's end of the channel closes.
 */
export async function serve(overrides: Partial<ServiceConfig> = {}): Promise<void> {
  const config = { ...configFromEnv(), ...overrides };
  const app = await buildApp({ config, logger: true });
  let stopping = false;
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`\n${why}: closing the parcel service\n`);
    await app.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGHUP', () => void stop('SIGHUP'));
  // Started with an IPC channel (the app's embedded service, app/start.ts): the channel closes when the parent ends,
  // however it ends — kill -9 included, which no signal handler of the parent sees — and the service goes with it
  // instead of running on with no one to stop it. Without a channel (npm run service, a test's process) nothing changes.
  if (process.send && process.connected) process.once('disconnect', () => void stop('The process that started the parcel service is gone'));
  await app.listen({ host: config.host, port: config.port });
  process.stderr.write(`Parcel service listening on http://${config.host}:${config.port} (data in ${config.dataDir}${config.faults ? ', FAULTS=1' : ''})\n`);
  process.stderr.write(`OpenAPI document: http://${config.host}:${config.port}/api/openapi.json\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  serve().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
