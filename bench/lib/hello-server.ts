// The ceiling reference for the bulk-create benchmark: plain fastify 5 with the same body limit as the service,
// no auth, no validation, no SQLite. GET /hello is the trivial route; POST /sink parses the same JSON bodies and
// answers a small object, which is the HTTP + JSON.parse floor under any bulk create.
import Fastify from 'fastify';

const app = Fastify({ logger: false, bodyLimit: 8 * 1024 * 1024 });
app.get('/healthz', async () => ({ ok: true }));
app.get('/hello', async () => ({ hello: 'world' }));
app.post('/sink', async (req, reply) => {
  const n = Array.isArray((req.body as { parcels?: unknown[] }).parcels) ? (req.body as { parcels: unknown[] }).parcels.length : 0;
  return reply.code(201).send({ received: n });
});
await app.listen({ host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 0) });
const stop = () => void app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
