import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { Type, type Static } from '@sinclair/typebox';
import { ApiError } from './errors.ts';
import { ErrorCode, errorBody } from '../core/errors.ts';

// Fault injection for the sync engine's tests (FAULTS=1 only): makes the next N matching requests fail
// the ways a real gateway and network do, before or after the work commits.
export const FaultModes = ['504-after-commit', '504-before-commit', 'drop-after-commit', 'delay', 'error', 'missing-farm-id', 'crash-mid-batch', 'crash-after-commit'] as const;
export type FaultMode = (typeof FaultModes)[number];

export const FaultRequest = Type.Union([
  Type.Object({ mode: Type.Literal('reset') }, { additionalProperties: false }),
  Type.Object({
    match: Type.String({ minLength: 1, description: "'METHOD /path/' (either may be '*'; a path ending in * is a prefix)" }),
    mode: Type.Union(FaultModes.map((m) => Type.Literal(m))),
    count: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
    ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 600_000 })),
    status: Type.Optional(Type.Integer({ minimum: 400, maximum: 599 })),
    retry_after: Type.Optional(Type.Integer({ minimum: 0 })),
  }, { additionalProperties: false }),
]);
export type FaultInput = Exclude<Static<typeof FaultRequest>, { mode: 'reset' }>;

export interface Rule extends FaultInput { remaining: number }

/**
 * Where the rules are kept: in the process (Faults), or, for several processes on one PostgreSQL database, in the
 * database (store/postgres/faults.ts), so that a rule is used once whichever process takes the request.
 */
export interface FaultBook {
  add(input: FaultInput): Promise<void> | void;
  reset(): Promise<void> | void;
  list(): Promise<Rule[]> | Rule[];
  /** Consumes one use of the first rule matching this request. */
  take(method: string, path: string): Promise<Rule | null> | Rule | null;
}

/** Whether a rule's `match` ('METHOD /path/', either '*', a path ending in * a prefix) takes this request. */
export function ruleMatches(match: string, method: string, path: string): boolean {
  const [m = '*', p = '*'] = match.trim().split(/\s+/, 2);
  if (m !== '*' && m.toUpperCase() !== method) return false;
  return p === '*' || p === path || (p.endsWith('*') && path.startsWith(p.slice(0, -1)));
}

export class Faults implements FaultBook {
  private rules: Rule[] = [];

  add(input: FaultInput): void {
    this.rules.push({ ...input, remaining: input.count ?? 1 });
  }
  reset(): void {
    this.rules = [];
  }
  list(): Rule[] {
    return this.rules.filter((r) => r.remaining > 0);
  }
  take(method: string, path: string): Rule | null {
    for (const r of this.rules) {
      if (r.remaining <= 0 || !ruleMatches(r.match, method, path)) continue;
      r.remaining--;
      return r;
    }
    return null;
  }
}

declare module 'fastify' {
  interface FastifyRequest { fault: Rule | null }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The path of the matched route with its parameters filled in ('/api/parcels/17/'), whatever spelling the
 * request used: rules match routes, not URL text.
 */
function routePath(req: FastifyRequest): string {
  const params = (req.params ?? {}) as Record<string, unknown>;
  return (req.routeOptions.url ?? '').replace(/:(\w+)/g, (_, name: string) => String(params[name])).replace(/\/?$/, '/');
}

/** Applies the fault rules to the API's routes; registered inside the API's plugin scope (app.ts). */
export function injectFaults(app: FastifyInstance, faults: FaultBook): void {
  app.addHook('preHandler', async (req, reply) => {
    const rule = await faults.take(req.method, routePath(req));
    if (!rule) return;
    req.fault = rule;
    if (rule.mode === 'delay') {
      await sleep(rule.ms ?? 1000);
      // The gateway answered 504 during the wait, and fastify skips the handler of a reply already sent. Behind the
      // real gateway the work goes on and commits, so run the handler here; respond() discards its answer.
      if (reply.sent) {
        try {
          await req.routeOptions.handler.call(app, req, reply);
        } catch (err) {
          req.log.warn({ err }, 'request failed after the gateway had answered 504');
        }
        return;
      }
    }
    if (rule.mode === '504-before-commit') {
      return reply.code(504).send(errorBody(ErrorCode.gatewayTimeout, 'Gateway Time-out'));
    }
    if (rule.mode === 'missing-farm-id') {
      // What the hosted service answers when it loses the farm id on the way (the spec's 200 that is not a success).
      return reply.code(200).send({ message: 'Missing Farm ID' });
    }
    if (rule.mode === 'error') {
      if (rule.retry_after !== undefined) void reply.header('retry-after', String(rule.retry_after));
      const status = rule.status ?? 503;
      return reply.code(status).send(errorBody(ErrorCode.internal, `Injected fault ${status}`));
    }
  });
}

/** POST and GET /__faults__ (FAULTS=1 only): public, like the switch a test harness flips. */
export function registerFaultRoutes(app: FastifyInstance, faults: FaultBook): void {
  const options = { schema: { hide: true, body: FaultRequest }, config: { auth: 'public' as const } };
  app.post('/__faults__', options, async (req) => {
    const body = req.body as Static<typeof FaultRequest>;
    if (body.mode === 'reset') await faults.reset();
    else await faults.add(body);
    return { faults: await faults.list() };
  });
  app.get('/__faults__', { schema: { hide: true }, config: { auth: 'public' } }, async () => ({ faults: await faults.list() }));
}

/** Called by a handler after its work committed: applies an after-commit fault, or sends normally. */
export function respond(req: FastifyRequest, reply: FastifyReply, status: number, payload: unknown): FastifyReply {
  if (reply.sent) return reply; // the gateway already answered 504; the work still committed
  const mode = req.fault?.mode;
  if (mode === 'crash-after-commit') process.kill(process.pid, 'SIGKILL');
  if (mode === 'drop-after-commit') {
    reply.hijack();
    req.raw.socket.destroy();
    return reply;
  }
  if (mode === '504-after-commit') throw new ApiError(ErrorCode.gatewayTimeout, 'Gateway Time-out');
  if (typeof payload === 'string' || payload instanceof Readable) void reply.type('application/json; charset=utf-8');
  return reply.code(status).send(payload);
}

/** For bulk creates: a crash-mid-batch fault kills the process inside the transaction, after half the rows. */
export function midBatchHook(req: FastifyRequest, total: number): ((inserted: number) => void) | undefined {
  if (req.fault?.mode !== 'crash-mid-batch') return undefined;
  const at = Math.max(1, Math.floor(total / 2));
  return (inserted) => {
    if (inserted >= at) process.kill(process.pid, 'SIGKILL');
  };
}
