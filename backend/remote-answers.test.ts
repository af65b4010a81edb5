// What a page learns of an address it makes the backend fetch (connect, addOrganization, a token provider): a page
// chooses the address, so the backend must not be a window onto whatever answers there — an intranet or loopback
// server's error page, its JSON. Only the parcel service's own error body is repeated (its message, cut short),
// besides the spec's fixed messages; a token provider's refusal is its HTTP status. Driven through the backend's
// handlers against a stand-in server on 127.0.0.1 answering what the attacker's scripts found (/tmp/rev/atk).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Backend } from './backend.ts';
import { inProcess, type RpcError } from '../core/rpc.ts';
import type { Api } from '../core/api.ts';
import { errorBody } from '../core/errors.ts';
import { MAX_SAID, errorMessage, saidMessage, serviceError } from '../sync/answers.ts';
import { blockedBy } from '../sync/blocked.ts';

const SECRET = 'SECRET=hunter2';
const HTML = `<html>internal admin page: ${SECRET} db_password=swordfish</html>`;

/** An account_access token for `sub` (unsigned: the stand-in checks nothing). */
const jwt = (sub: string) => {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${part({ alg: 'HS256' })}.${part({ typ: 'account_access', sub, exp: Math.floor(Date.now() / 1000) + 3600 })}.sig`;
};

/** The answers, by the address's first path segment: what an intranet server, or the parcel service, would say. */
const ANSWERS: Record<string, { status: number; type: string; body: string }> = {
  html: { status: 403, type: 'text/html', body: HTML },
  detail: { status: 418, type: 'application/json', body: JSON.stringify({ detail: `JSON ${SECRET}` }) },
  message: { status: 401, type: 'application/json', body: JSON.stringify({ message: `JSON ${SECRET}` }) },
  // Nearly the service's shape, with one more field: not the service's.
  lookalike: { status: 401, type: 'application/json', body: JSON.stringify({ code: 'denied', message: `JSON ${SECRET}`, detail: `JSON ${SECRET}`, config: { password: 'swordfish' } }) },
  // The parcel service's own refusal of a wrong key (service/errors.ts answers errorBody).
  service: { status: 401, type: 'application/json', body: JSON.stringify(errorBody('invalid_api_key', 'Invalid API key')) },
  long: { status: 401, type: 'application/json', body: JSON.stringify(errorBody('invalid_token', `Refused: ${'x'.repeat(1000)}`)) },
};

let server: Server;
let base: string;
let home: string;
let backend: Backend;
let api: ReturnType<typeof inProcess<Api>>;

beforeAll(async () => {
  server = createServer((req, res) => {
    const [, first = ''] = req.url!.split('/');
    if (first === 'ok') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('[]');
      return;
    }
    const a = ANSWERS[first.split('?')[0]!] ?? { status: 404, type: 'text/plain', body: `nope ${SECRET}` };
    res.writeHead(a.status, { 'content-type': a.type });
    res.end(a.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  home = mkdtempSync(join(tmpdir(), 'furrow-remote-answers-'));
  backend = new Backend({ home, env: {} });
  api = inProcess<Api>(backend.handlers);
});
afterAll(async () => {
  backend?.close();
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(home, { recursive: true, force: true });
});

const refusal = (p: Promise<unknown>) => p.then(() => { throw new Error('not refused'); }, (e: RpcError) => e);

describe("the service's answers, as the page may hear them", () => {
  it("repeats the service's own error body (its message, cut short) and the spec's fixed messages, nothing else", () => {
    expect(serviceError(errorBody('invalid_api_key', 'Invalid API key'))).toEqual({ code: 'invalid_api_key', message: 'Invalid API key' });
    expect(serviceError({ code: 'invalid_parcels', message: 'Invalid', errors: [{ index: 0, path: 'x', code: 'y', message: 'z' }] })).toEqual({ code: 'invalid_parcels', message: 'Invalid' });
    const long = serviceError(errorBody('validation_failed', 'y'.repeat(1000)))!;
    expect(long.message).toHaveLength(MAX_SAID);
    for (const body of [
      { detail: SECRET }, { message: SECRET }, { code: 'x', message: SECRET, detail: 'another' }, { code: 'x', message: SECRET, extra: 1 },
      { code: 'Not A Code', message: SECRET }, { code: 'x', message: 42 }, [SECRET], SECRET, null, { unparsed: HTML },
    ]) {
      expect(serviceError(body), JSON.stringify(body)).toBeNull();
      expect(saidMessage(body), JSON.stringify(body)).toBeUndefined();
    }
    // The spec's fixed messages, in the hosted original's {"detail": …} too.
    expect(saidMessage({ detail: 'Invalid token' })).toBe('Invalid token');
    expect(saidMessage({ created: false, message: 'Missing Farm ID' })).toBe('Missing Farm ID');
    const res = (status: number, body: unknown) => ({ status, body, headers: {}, retryAfterMs: null, sentBytes: 0 });
    expect(errorMessage(res(403, { detail: SECRET }))).toBe('HTTP 403');
    expect(errorMessage(res(401, errorBody('invalid_api_key', 'Invalid API key')))).toBe('Invalid API key');
    // A block's reason (shown to the page) too.
    expect(blockedBy(res(401, { message: SECRET }))?.reason).toBe('HTTP 401');
  });
});

describe('connect, addOrganization and a token provider at an address a page chose', () => {
  it('connect: an error page or foreign JSON is said by its status only; the service\'s own refusal in its words', async () => {
    for (const path of ['html', 'detail', 'message', 'lookalike']) {
      for (const args of [{ service: `${base}/${path}`, token: jwt('acc-x') }, { service: `${base}/${path}`, apiKey: 'k', account: 'acc-x' }]) {
        const err = await refusal(api.connect(args));
        expect(err, path).toMatchObject({ code: 'connect_refused', message: expect.stringMatching(/^The service refused the credentials: HTTP 4\d\d$/) });
        expect(err.message).not.toMatch(/SECRET|hunter2|swordfish/);
      }
    }
    expect(await refusal(api.connect({ service: `${base}/service`, apiKey: 'wrong', account: 'acc-x' }))).toMatchObject({ code: 'connect_refused', message: 'The service refused the credentials: Invalid API key' });
    const long = await refusal(api.connect({ service: `${base}/long`, token: jwt('acc-x') }));
    expect(long.message.length).toBeLessThan(MAX_SAID + 60);
    // The token request of an organization's bearer account: the same rule.
    const bearer = await refusal(api.connect({ service: `${base}/lookalike`, apiKey: 'k', account: 'acc-x', bearer: true }));
    expect(bearer).toMatchObject({ code: 'connect_refused' });
    expect(bearer.message).not.toMatch(/SECRET|hunter2/);
    expect(await api.accounts({})).toEqual([]);
  });

  it('addOrganization: the same', async () => {
    for (const path of ['html', 'detail', 'message', 'lookalike']) {
      const err = await refusal(api.addOrganization({ service: `${base}/${path}`, apiKey: 'k' }));
      expect(err, path).toMatchObject({ code: 'connect_refused' });
      expect(err.message).toMatch(/HTTP 4\d\d$/);
      expect(err.message).not.toMatch(/SECRET|hunter2|swordfish/);
    }
    expect(await refusal(api.addOrganization({ service: `${base}/service`, apiKey: 'wrong' }))).toMatchObject({ message: expect.stringMatching(/API key: Invalid API key$/) });
  });

  it('refuses a service address with a user name or password, or a ? or # part, before anything is sent', async () => {
    for (const service of [`http://user:pw@127.0.0.1:1`, `http://user@127.0.0.1:1`, `${base}/html?`, `${base}/html?x=1`, `${base}/html#x`, 'file:///etc/passwd', 'http://']) {
      expect(await refusal(api.connect({ service, token: jwt('acc-x') })), service).toMatchObject({ code: 'connect_refused', details: { reason: 'bad_input' } });
      expect(await refusal(api.addOrganization({ service, apiKey: 'k' })), service).toMatchObject({ code: 'connect_refused', details: { reason: 'bad_input' } });
    }
    expect((await refusal(api.connect({ service: 'http://user:pw@127.0.0.1:1', token: jwt('acc-x') }))).message).toMatch(/must not hold a user name or password/);
  });

  it("a token provider's refusal is its HTTP status, never its body", async () => {
    await api.connect({ service: `${base}/ok`, token: jwt('acc-tp') });
    for (const path of ['html', 'detail', 'message', 'nothing-here']) {
      await api.setTokenProvider({ account: 'acc-tp', url: `${base}/${path}?a={account}` });
      const err = await refusal(api.renewToken({ account: 'acc-tp' }));
      expect(err, path).toMatchObject({ code: 'token_provider_failed', message: expect.stringMatching(/^No new token: The token provider refused \(HTTP 4\d\d\)$/) });
    }
  });
});
