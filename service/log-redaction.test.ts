// No credential reaches a log line, at any level: the embedded map's auth_id (in the URL of every request of the
// map), API keys, bearer tokens, the admin panel's password, session cookie and CSRF token. Real requests over a
// socket (test/helpers/raw-http.ts: the request line goes out as written, encoding tricks included) against a
// service logging at trace (everything) and at info (the level the review found the auth_id at).
import { Writable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { asAccount, asBearer, newAccount, newFarm, newOrg, startService, type TestService } from '../test/helpers/service.ts';
import { rawRequest } from '../test/helpers/raw-http.ts';
import { createAdmin } from './store/admins.ts';
import { redactUrl, scrubLogLine } from './log-redaction.ts';

const PASSWORD = 'correct horse; battery & staple';
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

interface Exercised {
  log: string;
  lines: Record<string, unknown>[];
  /** Every credential sent or issued while the service logged: none may appear in the log. */
  secrets: string[];
  /** The status each request got, by label: the requests did what they were meant to. */
  status: Map<string, number>;
}

/** Starts a service logging at `level`, drives every request that carries a credential, and collects the log. */
async function exercise(level: 'trace' | 'info'): Promise<Exercised> {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString());
      cb();
    },
  });
  const svc: TestService = await startService({ logLevel: level }, { logger: true, logStream: stream });
  const status = new Map<string, number>();
  const secrets: string[] = [];
  try {
    await svc.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (svc.app.server.address() as { port: number }).port;
    const raw = async (label: string, method: string, target: string, headers: Record<string, string> = {}, body?: string) => {
      const res = await rawRequest(port, method, target, headers, body);
      status.set(label, res.status);
      return res;
    };

    const org = await newOrg(svc);
    const acc = await newAccount(svc, org);
    await newFarm(svc, org, acc, 'Farm', []);
    const authId = new URL(acc.embedded_url).searchParams.get('auth_id')!;
    const unknownAuthId = 'UnknownAuthIdUnknownAuthId123456';
    secrets.push(authId, unknownAuthId, org.api_key, acc.account_access);

    // The embedded map: its page, its data, and the spellings of auth_id the service reads as auth_id.
    await raw('page', 'GET', `/embed/?auth_id=${authId}`);
    await raw('page, filtered', 'GET', `/embed/?auth_id=${authId}&metadata[crop]=wheat`);
    await raw('page, filter first', 'GET', `/embed/?metadata%5Bcrop%5D=wheat&auth_id=${authId}`);
    await raw('page, no slash', 'GET', `/embed?auth_id=${authId}`);
    await raw('parcels', 'GET', `/embed/data/parcels?auth_id=${authId}`);
    await raw('plants', 'GET', `/embed/data/plants?auth_id=${authId}`);
    await raw('unknown auth_id', 'GET', `/embed/?auth_id=${unknownAuthId}`);
    await raw('unknown auth_id, data', 'GET', `/embed/data/parcels?auth_id=${unknownAuthId}`);
    await raw('auth%5Fid', 'GET', `/embed/?auth%5Fid=${authId}`);
    await raw('auth%5fid', 'GET', `/embed/data/parcels?auth%5fid=${authId}`);
    await raw('%61uth_id', 'GET', `/embed/data/plants?%61%75%74%68_id=${authId}`);
    await raw('AUTH_ID', 'GET', `/embed/?AUTH_ID=${authId}`);
    await raw('repeated', 'GET', `/embed/?auth_id=${unknownAuthId}&auth_id=${authId}&auth_id=${authId}`);
    await raw('after #', 'GET', `/embed/#auth_id=${authId}`);
    await raw('encoded =', 'GET', `/embed/?auth_id%3D${authId}`);
    await raw('absolute form', 'GET', `http://127.0.0.1:${port}/embed/data/parcels?auth_id=${authId}`);
    await raw('unknown parameter', 'GET', `/embed/?auth_id=${authId}&nope=1`);
    // Malformed requests and unknown routes with the auth_id in them.
    await raw('bad percent-encoding', 'GET', `/embed/%zz/?auth_id=${authId}`);
    await raw('bad percent-encoding in the path, auth_id in the path', 'GET', `/embed/auth_id=${authId}%zz`);
    await raw('segment too long', 'GET', `/api/farms/${'1'.repeat(300)}/?auth_id=${authId}`);
    await raw('unknown route', 'GET', `/nowhere/?auth_id=${authId}`);
    await raw('unknown admin page', 'GET', `/admin/nowhere?auth_id=${authId}`);
    await raw('unknown embed file', 'GET', `/embed/data/farms?auth_id=${authId}`);
    await raw('unreadable header', 'GET', `/embed/?auth_id=${authId}`, { 'Bad Header': 'x' });
    await raw('POST to the map', 'POST', `/embed/data/parcels?auth_id=${authId}`, { 'Content-Type': 'application/json' }, '{');

    // The API: API key and bearer headers, good and bad, and credentials where they do not belong.
    const json = { 'Content-Type': 'application/json' };
    await raw('api key', 'GET', '/api/farms/', asAccount(org, acc));
    await raw('bearer', 'GET', '/api/farms/', asBearer(acc));
    await raw('both', 'GET', '/api/farms/', { ...asAccount(org, acc), ...asBearer(acc) });
    await raw('wrong api key', 'GET', '/api/farms/', { 'x-api-key': `${org.api_key}x` });
    await raw('token as api key', 'GET', '/api/farms/', { 'x-api-key': acc.account_access });
    await raw('lowercase bearer', 'GET', '/api/farms/', { authorization: `bearer ${acc.account_access}x` });
    await raw('api_key in the query', 'GET', `/api/farms/?api_key=${org.api_key}`);
    await raw('access_token in the query', 'GET', `/api/farms/?access_token=${acc.account_access}`);
    await raw('credentials in a malformed body', 'POST', '/api/farms/', { ...json, 'x-api-key': org.api_key }, `{"api_key":"${org.api_key}","account_access":"${acc.account_access}"`);
    const created = await raw('new account', 'POST', '/api/accounts/', { ...json, 'x-api-key': org.api_key }, '{"account_email":"logged@example.com"}');
    const fresh = JSON.parse(created.body) as { embedded_url: string; account_access: string };
    secrets.push(new URL(fresh.embedded_url).searchParams.get('auth_id')!, fresh.account_access);

    // The admin panel: a password posted to the sign-in form, the session cookie, the CSRF token, a new API key.
    await createAdmin(svc.store, org.organization_id, 'boss@example.com', PASSWORD);
    secrets.push(PASSWORD, form({ p: PASSWORD }).slice(2));
    await raw('wrong password', 'POST', '/admin/login', FORM, form({ email: 'boss@example.com', password: `${PASSWORD}!` }));
    const login = await raw('login', 'POST', '/admin/login', FORM, form({ email: 'boss@example.com', password: PASSWORD }));
    const session = /furrow_admin=([^;]+)/.exec(login.headers['set-cookie'] ?? '')?.[1];
    expect(session).toBeTruthy();
    secrets.push(session!, decodeURIComponent(session!));
    const cookie = { cookie: `furrow_admin=${session!}` };
    const keys = await raw('api keys page', 'GET', '/admin/api-keys', cookie);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(keys.body)?.[1];
    expect(csrf).toBeTruthy();
    secrets.push(csrf!);
    const newKey = await raw('new api key', 'POST', '/admin/api-keys', { ...FORM, ...cookie }, form({ _csrf: csrf!, label: 'logged' }));
    const issued = /fk_[0-9a-f]{8}_[A-Za-z0-9_-]{32}/.exec(newKey.body)?.[0];
    expect(issued).toBeTruthy();
    secrets.push(issued!);
    await raw('bad csrf', 'POST', '/admin/members/deactivate', { ...FORM, ...cookie }, form({ _csrf: `${csrf!}x`, account: acc.id }));
    await raw('members, session in the query too', 'GET', `/admin/members?furrow_admin=${session!}`, cookie);
    await raw('logout', 'POST', '/admin/logout', { ...FORM, ...cookie }, form({ _csrf: csrf! }));

    // Lines the service's own code or fastify write with a URL, a message or an error: through the same logger.
    for (const method of ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const) {
      svc.app.log[method](`Route GET:/embed/?auth_id=${authId} not found`);
      svc.app.log[method]({
        url: `/embed/data/parcels?metadata[crop]=wheat&auth_id=${authId}`,
        query: { auth_id: authId },
        body: { api_key: org.api_key, account_access: acc.account_access, password: PASSWORD, _csrf: csrf },
        headers: { 'x-api-key': org.api_key, authorization: `Bearer ${acc.account_access}`, cookie: `furrow_admin=${session!}` },
      }, `${method} line`);
      svc.app.log[method]({ err: new Error(`Reply was already sent, did you forget to "return reply" in "/embed/?auth_id=${authId}" (GET)?`) }, 'request errored');
      svc.app.log[method]({ err: Object.assign(new Error('Parse Error: Invalid header value char'), { rawPacket: Buffer.from(`GET /embed/?auth_id=${authId} HTTP/1.1\r\n`) }) }, 'client error');
    }
  } finally {
    await svc.close();
  }
  const log = chunks.join('');
  return { log, lines: log.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>), secrets, status };
}

describe.each(['trace', 'info'] as const)('at LOG_LEVEL=%s', (level) => {
  let run: Exercised;
  beforeAll(async () => {
    run = await exercise(level);
  });

  it('the requests did what they were meant to (the capture is of the real paths)', () => {
    const { status } = run;
    expect(status.get('page')).toBe(200);
    expect(status.get('page, filtered')).toBe(200);
    expect(status.get('page, filter first')).toBe(200);
    expect(status.get('page, no slash')).toBe(308);
    expect(status.get('parcels')).toBe(200);
    expect(status.get('plants')).toBe(200);
    expect(status.get('unknown auth_id')).toBe(404);
    expect(status.get('unknown auth_id, data')).toBe(404);
    // The service decodes the parameter's name: these are the auth_id too.
    expect(status.get('auth%5Fid')).toBe(200);
    expect(status.get('auth%5fid')).toBe(200);
    expect(status.get('%61uth_id')).toBe(200);
    expect(status.get('after #')).toBe(200);
    expect(status.get('bad percent-encoding')).toBe(400);
    expect(status.get('segment too long')).toBe(414);
    expect(status.get('unknown route')).toBe(404);
    expect(status.get('unreadable header')).toBe(400);
    expect(status.get('api key')).toBe(200);
    expect(status.get('bearer')).toBe(200);
    expect(status.get('new account')).toBe(201);
    expect(status.get('wrong password')).toBe(401);
    expect(status.get('login')).toBe(303);
    expect(status.get('new api key')).toBe(201);
  });

  it('no log line holds a credential', () => {
    const { log, secrets } = run;
    expect(log).toContain('incoming request'); // the capture works
    expect(secrets.length).toBeGreaterThanOrEqual(12);
    for (const secret of secrets) expect(log, secret).not.toContain(secret);
    // Nor the random part of a key, nor any token's signature on its own.
    for (const secret of secrets.filter((s) => s.startsWith('fk_'))) expect(log).not.toContain(secret.slice(12));
    for (const secret of secrets.filter((s) => s.startsWith('eyJ'))) expect(log).not.toContain(secret.split('.')[2]);
    expect(log).not.toMatch(/fk_[0-9a-f]{8}_[A-Za-z0-9_-]{8,}/);
    expect(log).not.toMatch(/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/);
    // The bytes of a request Node could not parse are logged by no one; given to a log line, they are censored.
    expect(log).not.toContain('"rawPacket":{');
  });

  it('the lines still show what was asked for: the path, the other parameters, where the auth_id was', () => {
    const urls = run.lines.map((l) => (l.req as { url?: string } | undefined)?.url).filter((u): u is string => typeof u === 'string');
    for (const url of [
      '/embed/?auth_id=[redacted]',
      '/embed/?auth_id=[redacted]&metadata[crop]=wheat',
      '/embed/?metadata%5Bcrop%5D=wheat&auth_id=[redacted]',
      '/embed?auth_id=[redacted]',
      '/embed/data/parcels?auth_id=[redacted]',
      '/embed/data/plants?auth_id=[redacted]',
      '/embed/?auth%5Fid=[redacted]',
      '/embed/data/plants?%61%75%74%68_id=[redacted]',
      '/embed/?AUTH_ID=[redacted]',
      '/embed/?auth_id=[redacted]&auth_id=[redacted]&auth_id=[redacted]',
      '/embed/#auth_id=[redacted]',
      '/embed/?auth_id%3D[redacted]',
      '/embed/?auth_id=[redacted]&nope=1',
      '/embed/%zz/?auth_id=[redacted]',
      '/nowhere/?auth_id=[redacted]',
      '/admin/nowhere?auth_id=[redacted]',
      '/api/farms/?api_key=[redacted]',
      '/api/farms/?access_token=[redacted]',
      '/admin/login',
      '/admin/api-keys',
      '/api/farms/',
    ]) expect(urls, url).toContain(url);
    expect(urls.some((u) => /^http:\/\/127\.0\.0\.1:\d+\/embed\/data\/parcels\?auth_id=\[redacted\]$/.test(u))).toBe(true);
  });

  it('lines written with a URL in the message, an object or an error are redacted too, at every level', () => {
    const own = run.lines.filter((l) => typeof l.msg === 'string' && (l.msg.endsWith(' line') || l.msg === 'request errored' || l.msg.startsWith('Route GET:') || l.msg === 'client error'));
    // trace, debug, info, warn, error, fatal: four lines each, from the level up.
    expect(own).toHaveLength(level === 'trace' ? 24 : 16);
    expect(run.log).toContain('Route GET:/embed/?auth_id=[redacted] not found');
    expect(run.log).toContain('"url":"/embed/data/parcels?metadata[crop]=wheat&auth_id=[redacted]"');
  });
});

describe('redactUrl: the value of every credential parameter, however spelt; the rest as it was', () => {
  it.each([
    ['/embed/?auth_id=abc&metadata[crop]=wheat', '/embed/?auth_id=[redacted]&metadata[crop]=wheat'],
    ['/embed/?metadata%5Bcrop%5D=wheat&auth_id=abc', '/embed/?metadata%5Bcrop%5D=wheat&auth_id=[redacted]'],
    ['/embed/data/parcels?auth%5Fid=abc', '/embed/data/parcels?auth%5Fid=[redacted]'],
    ['/embed/?%61%75%74%68%5f%69%64=abc', '/embed/?%61%75%74%68%5f%69%64=[redacted]'],
    ['/embed/?AUTH_ID=abc', '/embed/?AUTH_ID=[redacted]'],
    ['/embed/?auth-id=abc', '/embed/?auth-id=[redacted]'],
    ['/embed/?auth_id=a&auth_id=b&auth_id=', '/embed/?auth_id=[redacted]&auth_id=[redacted]&auth_id=[redacted]'],
    ['/embed/?auth_id=a=b%26c', '/embed/?auth_id=[redacted]'],
    ['/embed/#auth_id=abc', '/embed/#auth_id=[redacted]'],
    ['/embed/;auth_id=abc', '/embed/;auth_id=[redacted]'],
    ['/embed/?x=1#auth_id=abc', '/embed/?x=1#auth_id=[redacted]'],
    ['/embed/?x=1?auth_id=abc', '/embed/?x=1?auth_id=[redacted]'],
    ['/embed/?auth_id%3Dabc', '/embed/?auth_id%3D[redacted]'],
    ['/embed/auth_id=abc%zz/', '/embed/auth_id=[redacted]/'],
    ['http://user:pw@host/embed/?auth_id=abc', 'http://[redacted]@host/embed/?auth_id=[redacted]'],
    ['/api/farms/?api_key=fk_0123abcd_secret&x_api_key=k&access_token=t&token=t', '/api/farms/?api_key=[redacted]&x_api_key=[redacted]&access_token=[redacted]&token=[redacted]'],
    ['/admin/members?furrow_admin=s&_csrf=c&password=p', '/admin/members?furrow_admin=[redacted]&_csrf=[redacted]&password=[redacted]'],
    ['/api/farms/fk_0123abcd_SecretSecretSecret/', '/api/farms/fk_0123abcd_[redacted]/'],
    ['/api/farms/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl/', '/api/farms/[redacted]/'],
  ])('%s', (url, redacted) => {
    expect(redactUrl(url)).toBe(redacted);
  });

  it.each([
    '/embed/?metadata[auth_id]=wheat', '/embed/?metadata%5Bcrop%5D=wheat', '/api/parcels/?limit=10&offset=20', '/admin/login?org=org-1',
    '/embed/app.js', '/api/farms/17/', '/embed/?auth_idx=1&xauth_id=2', '/%61pi/farms/', '/embed/%zz/',
  ])('%s is left as it is', (url) => {
    expect(redactUrl(url)).toBe(url);
  });
});

describe('scrubLogLine: credentials anywhere in a serialized line', () => {
  it.each([
    ['{"msg":"Route GET:/embed/?auth_id=abc not found"}', '{"msg":"Route GET:/embed/?auth_id=[redacted] not found"}'],
    ['{"err":{"message":"in \\"/embed/?auth_id=abc\\" (GET)"}}', '{"err":{"message":"in \\"/embed/?auth_id=[redacted]\\" (GET)"}}'],
    ['{"cookie":"a=1; furrow_admin=tok; b=2"}', '{"cookie":"a=1; furrow_admin=[redacted]; b=2"}'],
    ['{"a":{"b":{"password":"p\\"w","auth_id":"x","n":1}}}', '{"a":{"b":{"password":"[redacted]","auth_id":"[redacted]","n":1}}}'],
    ['{"m":"Authorization: Bearer abc.def"}', '{"m":"Authorization: Bearer [redacted]"}'],
    ['{"m":"x-api-key fk_0123abcd_SecretSecret"}', '{"m":"x-api-key fk_0123abcd_[redacted]"}'],
  ])('%s', (line, scrubbed) => {
    expect(scrubLogLine(line)).toBe(scrubbed);
  });

  it('a line without credentials is left as it is', () => {
    const line = '{"level":30,"reqId":"req-1","req":{"method":"GET","url":"/api/farms/?limit=5","host":"127.0.0.1:8080"},"msg":"Send either x-api-key or Authorization: Bearer, not both"}';
    expect(scrubLogLine(line)).toBe(line);
  });
});
