// The organization's admin panel at /admin/: server-rendered pages, no scripts. Registered with the prefix
// /admin; every state change is a CSRF-checked POST and goes through the same Store methods as the CLI.
import { readFileSync } from 'node:fs';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { ApiError } from '../../errors.ts';
import { ErrorCode } from '../../../core/errors.ts';
import { DEFAULT_MAX_PARCEL_HECTARES } from '../../../core/parcels/limits.ts';
import { login, type AdminSession, type Flash } from '../../store/admins.ts';
import type { AccountRow } from '../../store/accounts.ts';
import { AdminError, clearCookie, field, installPlumbing, pageNotFound, sessionCookie, sessionOf } from './http.ts';
import type { Html, PageContext } from './html.ts';
import { dataPage, deactivatePage, deleteOrphanPage, errorPage, loginPage, membersPage, purgePage, unlinkPage, type AccountStats } from './pages.ts';
import { apiKeysPage, billingPage, limitsPage, revokeKeyPage, revokeTokensPage } from './pages-org.ts';

const CSS = readFileSync(new URL('./admin.css', import.meta.url), 'utf8');
const PUBLIC = new Set(['/admin/login', '/admin/admin.css']);

const pageContext = (s: AdminSession): PageContext => ({ organizationName: s.organizationName, email: s.email, csrfToken: s.csrfToken });
const send = (reply: FastifyReply, page: Html, status = 200) => reply.code(status).type('text/html; charset=utf-8').send(page.value);
const query = (req: FastifyRequest, name: string): string => {
  const v = (req.query as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : '';
};

export default async function adminRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const { store } = ctx;
  const secure = ctx.config.publicUrl.startsWith('https:');
  installPlumbing(app, store, PUBLIC, secure);

  /** The flash of the previous POST, shown once. */
  const takeFlash = async (s: AdminSession): Promise<Flash | null> => {
    if (s.flash) await store.admins.setFlash(s, null);
    return s.flash;
  };
  const done = async (reply: FastifyReply, s: AdminSession, to: string, text: string, kind: Flash['kind'] = 'success') => {
    await store.admins.setFlash(s, { kind, text });
    return reply.redirect(to, 303);
  };
  // Another organization's account or farm does not exist here: 404, exactly as an unknown id.
  const orgAccount = async (s: AdminSession, id: string): Promise<AccountRow> => {
    const a = id ? await store.accounts.get(id) : undefined;
    if (!a || a.organization_id !== s.organizationId) throw pageNotFound('Account');
    return a;
  };
  const farmId = (raw: string): number => (/^[1-9][0-9]{0,15}$/.test(raw) ? Number(raw) : 0);
  const stats = async (s: AdminSession): Promise<Map<string, AccountStats>> => new Map((await store.billing.of(s.organizationId)).accounts.map((a) => [a.account, a]));

  app.setErrorHandler((err: FastifyError | ApiError | AdminError, req, reply) => {
    let status: number, title: string, message: string;
    if (err instanceof AdminError) {
      ({ status, title, message } = err);
      void reply.headers(err.headers);
    } else if (err instanceof ApiError) {
      // The store's "Account not found" is a 403 on the API (the credential may not act for it); here it is a missing page.
      status = err.code === ErrorCode.accountNotFound ? 404 : err.status;
      title = status === 404 ? 'Not found' : status === 409 ? 'Not possible now' : 'Not done';
      message = err.message;
    } else if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      [status, title, message] = [err.statusCode, 'Bad request', 'The form could not be read.'];
    } else {
      req.log.error({ err }, 'admin panel error');
      [status, title, message] = [500, 'Something went wrong', 'The action failed on the server; nothing was changed. Try again.'];
    }
    const s = req.adminSession;
    return send(reply, errorPage(s ? pageContext(s) : null, status, title, message), status);
  });
  app.setNotFoundHandler((req, reply) => {
    const s = req.adminSession;
    return send(reply, errorPage(s ? pageContext(s) : null, 404, 'Page not found', 'There is no such page in the admin panel.'), 404);
  });

  app.get('/admin.css', async (_req, reply) => reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=300').send(CSS));
  app.get('/', async (_req, reply) => reply.redirect('/admin/members', 303));

  // ---- sign-in ----
  app.get('/login', async (req, reply) => {
    if (req.adminSession) return reply.redirect('/admin/members', 303);
    return send(reply, loginPage({ org: query(req, 'org') }));
  });
  app.post('/login', async (req, reply) => {
    const email = field(req, 'email').trim();
    const org = field(req, 'org');
    const result = await login(store, { email, password: field(req, 'password'), ip: req.ip, organizationId: org || undefined });
    if (!result.ok) {
      if (result.reason === 'rate_limited') {
        const minutes = Math.ceil(result.retryAfterSeconds / 60);
        void reply.header('retry-after', String(result.retryAfterSeconds));
        return send(reply, loginPage({ email, org, limited: true, error: `Too many failed sign-in attempts. For your security, signing in as this user from your network is paused: try again in ${minutes} minute${minutes === 1 ? '' : 's'}.` }), 429);
      }
      return send(reply, loginPage({ email, org, error: 'The email or password is not correct.' }), 401);
    }
    // A fresh session on every sign-in: a session id planted before sign-in is never promoted.
    if (req.adminToken) await store.admins.deleteSession(req.adminToken);
    void reply.header('set-cookie', sessionCookie(result.token, secure));
    return reply.redirect('/admin/members', 303);
  });
  app.post('/logout', async (req, reply) => {
    await store.admins.deleteSession(req.adminToken ?? '');
    void reply.header('set-cookie', clearCookie(secure));
    return reply.redirect('/admin/login', 303);
  });

  // ---- Settings > Members ----
  app.get('/members', async (req, reply) => {
    const s = sessionOf(req);
    const st = await stats(s);
    const members = (await store.accounts.list(s.organizationId)).map((account) => ({ account, stats: st.get(account.id) ?? { farms: 0, parcels: 0, hectares: 0 } }));
    return send(reply, membersPage(pageContext(s), await takeFlash(s), members));
  });
  app.get('/members/deactivate', async (req, reply) => {
    const s = sessionOf(req);
    const a = await orgAccount(s, query(req, 'account'));
    if (a.state !== 'active') return reply.redirect('/admin/members', 303);
    return send(reply, deactivatePage(pageContext(s), a, await store.farms.listLinked(s.organizationId, a.id)));
  });
  app.post('/members/deactivate', async (req, reply) => {
    const s = sessionOf(req);
    const a = await orgAccount(s, field(req, 'account'));
    if (a.state !== 'active') throw new AdminError(409, 'Already deactivated', `${a.account_email} is already deactivated.`);
    await store.accounts.deactivate(s.organizationId, a.id);
    return done(reply, s, '/admin/members', `${a.account_email} is deactivated. Its data is kept; reactivate it here at any time.`);
  });
  app.post('/members/reactivate', async (req, reply) => {
    const s = sessionOf(req);
    const a = await orgAccount(s, field(req, 'account'));
    await store.accounts.reactivate(s.organizationId, a.id);
    return done(reply, s, '/admin/members', `${a.account_email} is active again, with all its data.`);
  });
  app.get('/members/delete', async (req, reply) => {
    const s = sessionOf(req);
    const a = await orgAccount(s, query(req, 'account'));
    if (a.state !== 'deactivated') throw new AdminError(409, 'Deactivate first', 'Only a deactivated account can be deleted permanently: deactivate it first.');
    return send(reply, purgePage(pageContext(s), a, (await stats(s)).get(a.id) ?? { farms: 0, parcels: 0, hectares: 0 }));
  });
  app.post('/members/delete', async (req, reply) => {
    const s = sessionOf(req);
    const a = await orgAccount(s, field(req, 'account'));
    if (field(req, 'confirm_email').trim().toLowerCase() !== a.account_email.toLowerCase()) {
      const page = purgePage(pageContext(s), a, (await stats(s)).get(a.id) ?? { farms: 0, parcels: 0, hectares: 0 }, 'The email you typed does not match the account: nothing was deleted.');
      return send(reply, page, 400);
    }
    const r = await store.accounts.purge(s.organizationId, a.id);
    return done(reply, s, '/admin/members', `${a.account_email} and all its data (${r.farms} farms, ${r.parcels} parcels) are permanently deleted. The email can be used again.`);
  });

  // ---- Settings > Data Management ----
  app.get('/data', async (req, reply) => {
    const s = sessionOf(req);
    const farms = await store.farms.listLinked(s.organizationId);
    const linked = (await store.accounts.list(s.organizationId))
      .map((account) => ({ account, farms: farms.filter((f) => f.account === account.id) }))
      .filter((g) => g.farms.length > 0);
    return send(reply, dataPage(pageContext(s), await takeFlash(s), await store.farms.listOrphans(s.organizationId), linked));
  });
  const linkedFarm = async (s: AdminSession, raw: string) => {
    const f = (await store.farms.listLinked(s.organizationId)).find((x) => x.id === farmId(raw));
    if (!f) throw pageNotFound('Linked farm');
    return f;
  };
  const orphanFarm = async (s: AdminSession, raw: string) => {
    const f = (await store.farms.listOrphans(s.organizationId)).find((x) => x.id === farmId(raw));
    if (!f) throw pageNotFound('Orphan farm');
    return f;
  };
  app.get('/data/unlink', async (req, reply) => {
    const s = sessionOf(req);
    const f = await linkedFarm(s, query(req, 'farm'));
    return send(reply, unlinkPage(pageContext(s), f, await orgAccount(s, f.account)));
  });
  app.post('/data/unlink', async (req, reply) => {
    const s = sessionOf(req);
    const f = await linkedFarm(s, field(req, 'farm'));
    await store.farms.unlink(s.organizationId, f.id);
    return done(reply, s, '/admin/data', `Farm “${f.name}” (#${f.id}) is unlinked: it is now an orphan, still billed.`);
  });
  app.get('/data/delete', async (req, reply) => {
    const s = sessionOf(req);
    return send(reply, deleteOrphanPage(pageContext(s), await orphanFarm(s, query(req, 'farm'))));
  });
  app.post('/data/delete', async (req, reply) => {
    const s = sessionOf(req);
    const f = await orphanFarm(s, field(req, 'farm'));
    await store.farms.deleteOrphan(s.organizationId, f.id);
    return done(reply, s, '/admin/data', `Orphan farm “${f.name}” (#${f.id}) and its ${f.parcel_count} parcels are deleted.`);
  });

  // ---- Billing ----
  app.get('/billing', async (req, reply) => {
    const s = sessionOf(req);
    return send(reply, billingPage(pageContext(s), await store.billing.of(s.organizationId)));
  });

  // ---- API keys ----
  app.get('/api-keys', async (req, reply) => {
    const s = sessionOf(req);
    return send(reply, apiKeysPage(pageContext(s), await takeFlash(s), await store.apiKeys.list(s.organizationId), await store.signingKeys.list(s.organizationId)));
  });
  app.post('/api-keys', async (req, reply) => {
    const s = sessionOf(req);
    const label = field(req, 'label').trim().slice(0, 100);
    const created = await store.apiKeys.create(s.organizationId, label);
    // Rendered directly, not redirected: the key exists only in this one response (which is never cached).
    return send(reply, apiKeysPage(pageContext(s), null, await store.apiKeys.list(s.organizationId), await store.signingKeys.list(s.organizationId), { ...created, label }), 201);
  });
  const activeKey = async (s: AdminSession, prefix: string) => {
    const keys = await store.apiKeys.list(s.organizationId);
    const k = keys.find((x) => x.prefix === prefix && !x.revoked);
    if (!k) throw pageNotFound('Active API key');
    return { k, lastActive: keys.filter((x) => !x.revoked).length === 1 };
  };
  app.get('/api-keys/revoke', async (req, reply) => {
    const s = sessionOf(req);
    const { k, lastActive } = await activeKey(s, query(req, 'prefix'));
    return send(reply, revokeKeyPage(pageContext(s), k, lastActive));
  });
  app.post('/api-keys/revoke', async (req, reply) => {
    const s = sessionOf(req);
    const { k } = await activeKey(s, field(req, 'prefix'));
    await store.apiKeys.revoke(s.organizationId, k.prefix);
    return done(reply, s, '/admin/api-keys', `API key ${k.prefix}… is revoked: requests with it now get 401.`);
  });

  // ---- Account tokens (on the API keys page) ----
  app.post('/tokens/rotate', async (req, reply) => {
    const s = sessionOf(req);
    const { kid } = await store.signingKeys.rotate(s.organizationId);
    return done(reply, s, '/admin/api-keys', `New signing key ${kid}. Tokens issued before keep working until they expire (at most 3 hours).`);
  });
  app.get('/tokens/revoke', async (req, reply) => send(reply, revokeTokensPage(pageContext(sessionOf(req)))));
  app.post('/tokens/revoke', async (req, reply) => {
    const s = sessionOf(req);
    await store.signingKeys.rotate(s.organizationId, { revoke: true });
    return done(reply, s, '/admin/api-keys', 'Every account token is revoked: clients get 401 Invalid token and must fetch a new one.');
  });

  // ---- Account limits ----
  app.get('/limits', async (req, reply) => {
    const s = sessionOf(req);
    return send(reply, limitsPage(pageContext(s), await takeFlash(s), await store.accounts.list(s.organizationId)));
  });
  app.post('/limits', async (req, reply) => {
    const s = sessionOf(req);
    const a = await orgAccount(s, field(req, 'account'));
    const restore = field(req, 'action') === 'default';
    const raw = field(req, 'hectares').trim();
    const hectares = restore ? null : raw === '' ? Number.NaN : Number(raw);
    if (!restore && !(Number.isFinite(hectares) && hectares! > 0)) {
      return done(reply, s, '/admin/limits', `The limit for ${a.account_email} must be a positive number of hectares; nothing was changed.`, 'error');
    }
    const updated = await store.accounts.setParcelLimit(a.id, hectares);
    return done(reply, s, '/admin/limits', restore
      ? `${a.account_email} is back to the default limit of ${DEFAULT_MAX_PARCEL_HECTARES} ha per parcel.`
      : `${a.account_email} may now have parcels of up to ${updated.max_parcel_hectares} ha.`);
  });
}
