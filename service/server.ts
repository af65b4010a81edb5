import { buildApp } from './app.ts';
import { configFromEnv, type ServiceConfig } from './config.ts';

/** Listens on HOST:PORT with data in DATA_DIR; stops cleanly on SIGINT/SIGTERM. */
export async function serve(overrides: Partial<ServiceConfig> = {}): Promise<void> {
  const config = { ...configFromEnv(), ...overrides };
  const app = await buildApp({ config, logger: true });
  const stop = async (signal: string) => {
    process.stderr.write(`\n${signal}: closing the parcel service\n`);
    await app.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
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
