// The typed channel over a real MessageChannel (the global one, as in a browser): calls by name, checked
// arguments, progress, cancellation, events.
import { afterEach, describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { CLI_ONLY, PAGE_AND_CLI, createClient, inProcess, messageText, serve, JsonItems, RpcCode, RpcError, type HandlersOf, type Port } from './rpc.ts';
import { problemsOf } from './schemas/check.ts';

const contract = {
  add: { callers: PAGE_AND_CLI, description: 'a + b', args: Type.Object({ a: Type.Number(), b: Type.Number() }, { additionalProperties: false }), result: Type.Number() },
  count: { callers: PAGE_AND_CLI, description: 'counts to n, reporting each step', args: Type.Object({ n: Type.Integer({ minimum: 0 }) }), result: Type.String(), progress: Type.Object({ done: Type.Integer() }) },
  wait: { callers: PAGE_AND_CLI, description: 'waits until cancelled', args: Type.Object({}), result: Type.Null() },
  boom: { callers: PAGE_AND_CLI, description: 'fails', args: Type.Object({ coded: Type.Boolean() }), result: Type.Null() },
  shapes: { callers: PAGE_AND_CLI, description: 'an answer already written as JSON texts', args: Type.Object({ bad: Type.Boolean() }), result: Type.Array(Type.Object({ name: Type.String(), xy: Type.Array(Type.Number()) })) },
  /** A power only the user's own processes have (a path, a command). */
  cliOnly: { callers: CLI_ONLY, description: 'for the command line only', args: Type.Object({ path: Type.String() }), result: Type.Null() },
  layer: { callers: PAGE_AND_CLI, description: 'an object with a list written as JSON texts', args: Type.Object({}), result: Type.Object({ kind: Type.String(), items: Type.Array(Type.Object({ n: Type.Number() })), more: Type.Boolean() }) },
};

const events = {
  changed: { callers: PAGE_AND_CLI, description: 'something changed', payload: Type.Object({ what: Type.String() }) },
  cliNews: { callers: CLI_ONLY, description: 'for the command line only', payload: Type.Object({ path: Type.String() }) },
  other: { callers: PAGE_AND_CLI, description: 'another event', payload: Type.Object({}) },
};

const port = (p: MessagePort): Port => ({
  postMessage: (m) => p.postMessage(m),
  onMessage(l) {
    const h = (e: MessageEvent) => l(e.data);
    p.addEventListener('message', h);
    p.start();
    return () => p.removeEventListener('message', h);
  },
});

let channels: MessageChannel[] = [];
afterEach(() => { for (const c of channels) { c.port1.close(); c.port2.close(); } channels = []; });

function pair(handlers: HandlersOf<typeof contract>, caller: 'page' | 'cli' = 'cli') {
  const ch = new MessageChannel();
  channels.push(ch);
  const server = serve(contract, port(ch.port1), handlers, { check: problemsOf, caller, events });
  const client = createClient(contract, port(ch.port2), events);
  return { server, client };
}

const calls: string[] = [];
const handlers: HandlersOf<typeof contract> = {
  add: ({ a, b }) => { calls.push('add'); return a + b; },
  async count({ n }, ctx) {
    for (let i = 1; i <= n; i++) { ctx.progress({ done: i }); await new Promise((r) => setImmediate(r)); }
    return `counted ${n}`;
  },
  wait: (_args, ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('stopped')))),
  cliOnly: () => { calls.push('cliOnly'); return null; },
  boom({ coded }) { throw coded ? new RpcError('not_found', 'no such parcel', { id: 'x' }) : new Error('disk on fire'); },
  shapes: ({ bad }) => JsonItems.array(bad ? ['{"name":"a","xy":[]}', '{"name":'] : [`{"name":${JSON.stringify('a "quoted" é')},"xy":[1.5,-2e-7]}`, '{"name":"b","xy":[]}']),
  layer: () => JsonItems.object<{ kind: string; items: { n: number }[]; more: boolean }>({ kind: 'k', more: true }, { items: ['{"n":1}', '{"n":2}'] }),
};

describe('core/rpc', () => {
  it('calls the handler of the same name with checked arguments; refuses bad arguments and unknown or inherited names', async () => {
    const { client } = pair(handlers);
    calls.length = 0;
    expect(await client.api.add({ a: 2, b: 40 })).toBe(42);
    await expect(client.api.add({ a: 2, b: '40' } as never)).rejects.toMatchObject({ code: RpcCode.invalidArguments });
    await expect(client.api.add({ a: 2, b: 1, c: 3 } as never)).rejects.toMatchObject({ code: RpcCode.invalidArguments });
    expect(calls).toEqual(['add']);
    // A client built for another contract (a newer app) calling a method this server does not have.
    const ch = channels[0]!;
    for (const method of ['nope', 'constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const other = createClient({ [method]: contract.add } as Record<string, typeof contract.add>, port(ch.port2), {});
      await expect(other.api[method]!({ a: 1, b: 1 })).rejects.toMatchObject({ code: RpcCode.unknownMethod });
      other.close();
    }
  });

  it("refuses a method to a caller it is not for, before it looks at the arguments; the method's own callers get it", async () => {
    calls.length = 0;
    const page = pair(handlers, 'page').client;
    for (const args of [{ path: '/etc/passwd' }, {}, { path: 1 }]) {
      await expect(page.api.cliOnly(args as never)).rejects.toMatchObject({ code: RpcCode.forbidden, message: expect.stringMatching(/command line/) as unknown });
    }
    expect(await page.api.add({ a: 1, b: 2 })).toBe(3);
    const cli = pair(handlers, 'cli').client;
    expect(await cli.api.cliOnly({ path: '/tmp/x' })).toBeNull();
    await expect(cli.api.cliOnly({} as never)).rejects.toMatchObject({ code: RpcCode.invalidArguments });
    expect(calls).toEqual(['add', 'cliOnly']);
  });

  it('delivers progress in order before the result', async () => {
    const { client } = pair(handlers);
    const seen: number[] = [];
    expect(await client.api.count({ n: 5 }, { onProgress: (p) => seen.push(p.done) })).toBe('counted 5');
    expect(seen).toEqual([1, 2, 3, 4, 5]);
  });

  it('cancels: the handler sees its signal aborted and the call rejects as cancelled', async () => {
    const { client } = pair(handlers);
    const c = new AbortController();
    const p = client.api.wait({}, { signal: c.signal });
    setTimeout(() => c.abort(), 20);
    await expect(p).rejects.toMatchObject({ code: RpcCode.cancelled });
    await expect(client.api.wait({}, { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: RpcCode.cancelled });
  });

  it('passes coded errors through and calls anything else internal', async () => {
    const { client } = pair(handlers);
    await expect(client.api.boom({ coded: true })).rejects.toMatchObject({ code: 'not_found', message: 'no such parcel', details: { id: 'x' } });
    await expect(client.api.boom({ coded: false })).rejects.toMatchObject({ code: RpcCode.internal, message: 'disk on fire' });
  });

  it("delivers each event by its name to that name's listeners, only to the callers it is for; a closed client rejects what is waiting", async () => {
    const { client, server } = pair(handlers);
    const a: string[] = [];
    const b: string[] = [];
    const others: unknown[] = [];
    client.on('changed', (e) => a.push(e.what));
    const off = client.on('changed', (e) => b.push(e.what));
    client.on('other', (e) => others.push(e));
    server.emit('changed', { what: 'parcels' });
    await new Promise((r) => setTimeout(r, 20));
    off();
    server.emit('changed', { what: 'farms' });
    server.emit('other', {});
    await new Promise((r) => setTimeout(r, 20));
    expect([a, b, others]).toEqual([['parcels', 'farms'], ['parcels'], [{}]]);
    // An event the client's contract does not declare reaches nobody; one for the command line never reaches a page.
    const page = pair(handlers, 'page');
    const news: unknown[] = [];
    page.client.on('cliNews', (e) => news.push(e));
    page.server.emit('cliNews', { path: '/tmp/x' });
    (page.server.emit as (name: string, payload: unknown) => void)('undeclared', {});
    client.on('cliNews', (e) => news.push(e));
    server.emit('cliNews', { path: '/tmp/y' });
    await new Promise((r) => setTimeout(r, 20));
    expect(news).toEqual([{ path: '/tmp/y' }]);
    const waiting = client.api.wait({});
    client.close('the backend stopped');
    await expect(waiting).rejects.toMatchObject({ code: RpcCode.disconnected, message: 'the backend stopped' });
    await expect(client.api.add({ a: 1, b: 1 })).rejects.toMatchObject({ code: RpcCode.disconnected });
  });

  it('writes a message as one JSON text for a text transport, splicing JsonItems in as the plain result the client would parse', async () => {
    const sent: unknown[] = [];
    const out: Port = { postMessage: (m) => sent.push(m), onMessage: () => () => {} };
    // Answers as the server posts them, written as text frames: each frame parses to a plain result equal to what
    // the client makes of the parts.
    const texts: string[] = [];
    let feed: (m: unknown) => void = () => {};
    const server = serve(contract, { postMessage: (m) => { texts.push(messageText(m)); out.postMessage(m); }, onMessage: (l) => { feed = l; return () => {}; } }, handlers, { check: () => [], caller: 'cli', events });
    feed({ t: 'call', id: 1, method: 'layer', args: {} });
    feed({ t: 'call', id: 2, method: 'shapes', args: { bad: false } });
    feed({ t: 'call', id: 3, method: 'add', args: { a: 1, b: 2 } });
    await new Promise((r) => setTimeout(r, 10));
    server.close();
    expect(texts.map((t) => JSON.parse(t) as unknown)).toEqual([
      { t: 'result', id: 1, value: { kind: 'k', more: true, items: [{ n: 1 }, { n: 2 }] } },
      { t: 'result', id: 2, value: [{ name: 'a "quoted" é', xy: [1.5, -2e-7] }, { name: 'b', xy: [] }] },
      { t: 'result', id: 3, value: 3 },
    ]);
    expect(sent).toHaveLength(3);
    expect(JSON.parse(messageText({ t: 'result', id: 4, json: { value: {}, lists: { a: [] } } }))).toEqual({ t: 'result', id: 4, value: { a: [] } });
    expect(JSON.parse(messageText({ t: 'result', id: 5, json: { value: { a: 1 }, lists: {} } }))).toEqual({ t: 'result', id: 5, value: { a: 1 } });
    expect(messageText({ t: 'event', name: 'x', payload: { x: '"' } })).toBe(JSON.stringify({ t: 'event', name: 'x', payload: { x: '"' } }));
  });

  it('sends an answer given as JSON texts as texts, parsed once by the client (and by an in-process caller); text that is not JSON fails the call', async () => {
    const { client } = pair(handlers);
    const want = [{ name: 'a "quoted" é', xy: [1.5, -2e-7] }, { name: 'b', xy: [] }];
    expect(await client.api.layer({})).toEqual({ kind: 'k', items: [{ n: 1 }, { n: 2 }], more: true });
    expect(await client.api.shapes({ bad: false })).toEqual(want);
    await expect(client.api.shapes({ bad: true })).rejects.toMatchObject({ code: RpcCode.internal });
    const local = inProcess<typeof contract>(handlers);
    expect(await local.shapes({ bad: false })).toEqual(want);
    expect(await local.layer({})).toEqual({ kind: 'k', items: [{ n: 1 }, { n: 2 }], more: true });
    expect(await local.add({ a: 2, b: 3 })).toBe(5);
    const steps: number[] = [];
    expect(await local.count({ n: 3 }, { onProgress: (p) => steps.push(p.done) })).toBe('counted 3');
    expect(steps).toEqual([1, 2, 3]);
  });
});
