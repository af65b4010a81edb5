// Settings pages (Members, Data Management), the confirmations of their destructive actions, sign-in and errors.
import type { AccountRow } from '../../store/accounts.ts';
import type { OrphanFarm } from '../../store/farms.ts';
import type { Farm } from '../../../core/schemas/farms.ts';
import type { Flash } from '../../store/admins.ts';
import {
  alert, badge, bare, card, csrfField, date, day, ha, html, int, layout, linkButton, plural, postButton, table,
  type Html, type NavHref, type PageContext, type Part,
} from './html.ts';

export interface AccountStats { farms: number; parcels: number; hectares: number }
export interface MemberRow { account: AccountRow; stats: AccountStats }

const num = { label: '', cls: 'num' };
const th = (label: string) => ({ ...num, label });
const q = encodeURIComponent;

const who = (a: AccountRow): Html => html`<div class="who"><span class="who-main">${a.account_email}</span><code class="who-sub">${a.id}</code></div>`;
const stateBadge = (a: Pick<AccountRow, 'state'>): Html => badge(a.state);

export function membersPage(ctx: PageContext, flash: Flash | null, members: MemberRow[]): Html {
  const active = members.filter((m) => m.account.state === 'active').length;
  const rows = members.map(({ account: a, stats }) => html`<tr>
    <td>${who(a)}</td><td class="nowrap">${stateBadge(a)}${a.deactivated ? html`<div class="small muted">since ${day(a.deactivated)}</div>` : ''}</td>
    <td class="num">${int(stats.farms)}</td><td class="num">${int(stats.parcels)}</td><td class="num">${ha(stats.hectares)}</td>
    <td class="muted nowrap">${day(a.created)}</td>
    <td class="actions">${a.state === 'active'
      ? linkButton(`/admin/members/deactivate?account=${q(a.id)}`, 'Deactivate…')
      : html`${postButton(ctx, '/admin/members/reactivate', { account: a.id }, 'Reactivate', 'btn btn-sm btn-primary')} ${linkButton(`/admin/members/delete?account=${q(a.id)}`, 'Delete permanently…', 'btn btn-sm btn-danger-outline')}`}</td>
  </tr>`);
  return layout(ctx, {
    title: 'Members', active: '/admin/members', flash,
    lead: 'Every connected account of the organization. Deactivated accounts have no API access but keep their data, stay billed and can be reactivated.',
  }, card(
    html`Connected accounts <span class="count">${int(active)} active · ${int(members.length - active)} deactivated</span>`,
    table(['Account', 'State', th('Farms'), th('Parcels'), th('Hectares'), 'Created', ''], rows,
      html`No connected accounts yet. Create one with <code>POST /api/accounts/</code> or <code>npm run -s service -- create-account</code>.`),
  ));
}

interface ConfirmOptions {
  title: string;
  active: NavHref;
  body: Part;
  action: string;
  fields: Record<string, string>;
  button: string;
  danger?: boolean;
  cancel: string;
  inputs?: Part;
  error?: string | undefined;
}

/** A confirmation step: a GET page explains the consequences, and only its POST form changes anything. */
export function confirmPage(ctx: PageContext, o: ConfirmOptions): Html {
  return layout(ctx, { title: o.title, active: o.active }, html`<section class="card confirm">
  <div class="card-body">
    ${o.error ? alert('error', o.error) : ''}
    ${o.body}
    <form method="post" action="${o.action}" class="confirm-form">
      ${csrfField(ctx)}${Object.entries(o.fields).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}
      ${o.inputs ?? ''}
      <div class="form-actions">
        <button type="submit" class="btn ${o.danger ? 'btn-danger' : 'btn-primary'}">${o.button}</button>
        <a class="btn btn-secondary" href="${o.cancel}">Cancel</a>
      </div>
    </form>
  </div>
</section>`);
}

const farmList = (farms: Farm[]): Html => html`<ul class="farm-list">${farms.slice(0, 20).map(
  (f) => html`<li><code>#${f.id}</code> ${f.name} <span class="muted">· ${plural(f.parcel_count, 'parcel')}, ${ha(f.hectares)}</span></li>`,
)}${farms.length > 20 ? html`<li class="muted">and ${plural(farms.length - 20, 'more farm')}</li>` : ''}</ul>`;

export function deactivatePage(ctx: PageContext, a: AccountRow, farms: Farm[]): Html {
  const hectares = farms.reduce((s, f) => s + f.hectares, 0);
  return confirmPage(ctx, {
    title: `Deactivate ${a.account_email}?`, active: '/admin/members', action: '/admin/members/deactivate', fields: { account: a.id },
    button: 'Deactivate account', danger: true, cancel: '/admin/members',
    body: html`<p>The account loses API access at once: its <code>account_access</code> token and the <code>Service-Account</code> header
      answer <em>Account not found</em>, and its embedded map stops showing. Its data is kept, and you can reactivate it from Members.</p>
    ${farms.length > 0 ? alert('warning', html`<p>Its ${plural(farms.length, 'farm')} (${ha(hectares)}) stay billed while the account is deactivated,
      and its integration can no longer delete them through the API. Delete them first with <code>DELETE /api/farms/{id}/</code>, while the
      account is still active, to avoid orphans.</p>${farmList(farms)}`, `This account still has ${plural(farms.length, 'farm')}`)
      : alert('info', 'This account has no farms: nothing of it stays billed.')}`,
  });
}

export function purgePage(ctx: PageContext, a: AccountRow, stats: AccountStats, error?: string): Html {
  return confirmPage(ctx, {
    title: `Permanently delete ${a.account_email}?`, active: '/admin/members', action: '/admin/members/delete', fields: { account: a.id },
    button: 'Delete permanently', danger: true, cancel: '/admin/members', error,
    body: html`${alert('error', html`This removes the account and all its data: ${plural(stats.farms, 'farm')}, ${plural(stats.parcels, 'parcel')} (${ha(stats.hectares)}),
      their crops and plants. <strong>This cannot be undone.</strong> Its email becomes reusable for a new account.`, 'Permanent')}
      <p class="muted">Farms unlinked from this account earlier are orphans already: they are not deleted here (see Data Management).</p>`,
    inputs: html`<label class="field"><span>Type <strong>${a.account_email}</strong> to confirm</span>
      <input type="text" name="confirm_email" autocomplete="off" spellcheck="false" required></label>`,
  });
}

export function dataPage(ctx: PageContext, flash: Flash | null, orphans: OrphanFarm[], linked: { account: AccountRow; farms: Farm[] }[]): Html {
  const orphanHa = orphans.reduce((s, f) => s + f.hectares, 0);
  const orphanRows = orphans.map((f) => html`<tr>
    <td><span class="who-main">${f.name}</span> <code class="who-sub">#${f.id}</code></td><td>${badge('orphan')}</td>
    <td class="num">${int(f.parcel_count)}</td><td class="num">${ha(f.hectares)}</td><td class="muted nowrap">${date(f.modified)}</td>
    <td class="actions">${linkButton(`/admin/data/delete?farm=${f.id}`, 'Delete…', 'btn btn-sm btn-danger-outline')}</td></tr>`);
  const orphanFoot = orphans.length ? html`<tr><td colspan="2">Total</td><td class="num">${int(orphans.reduce((s, f) => s + f.parcel_count, 0))}</td><td class="num">${ha(orphanHa)}</td><td colspan="2"></td></tr>` : '';
  const groups = linked.map(({ account: a, farms }) => html`<div class="group">
    <div class="group-head">${who(a)} ${stateBadge(a)}</div>
    ${table(['Farm', th('Parcels'), th('Hectares'), 'Modified', ''], farms.map((f) => html`<tr>
      <td><span class="who-main">${f.name}</span> <code class="who-sub">#${f.id}</code></td><td class="num">${int(f.parcel_count)}</td><td class="num">${ha(f.hectares)}</td>
      <td class="muted nowrap">${date(f.modified)}</td><td class="actions">${linkButton(`/admin/data/unlink?farm=${f.id}`, 'Unlink…')}</td></tr>`), '')}
  </div>`);
  return layout(ctx, {
    title: 'Data Management', active: '/admin/data', flash,
    lead: 'Orphan farms are farms not linked to any account: invisible through the API and the standard UI, but still billed.',
  }, html`${card(html`Orphan farms <span class="count">${plural(orphans.length, 'farm')} · ${ha(orphanHa)} billed</span>`,
    table(['Farm', 'State', th('Parcels'), th('Hectares'), 'Modified', ''], orphanRows, 'No orphan farms: every billed hectare belongs to an account.', orphanFoot))}
  ${card('Farms linked to accounts', html`<p class="muted">Unlinking keeps a farm and its parcels but detaches it from its account: it becomes an orphan.</p>
    ${groups.length ? groups : html`<div class="empty">No account has farms.</div>`}`)}`);
}

export function unlinkPage(ctx: PageContext, f: Farm, a: AccountRow): Html {
  return confirmPage(ctx, {
    title: `Unlink farm “${f.name}”?`, active: '/admin/data', action: '/admin/data/unlink', fields: { farm: String(f.id) },
    button: 'Unlink farm', danger: true, cancel: '/admin/data',
    body: html`<p>Farm <code>#${f.id}</code> ${f.name} (${plural(f.parcel_count, 'parcel')}, ${ha(f.hectares)}) is detached from
      <strong>${a.account_email}</strong>. The farm and its data are kept, but it becomes an <strong>orphan</strong>: invisible through the API
      and the account's embedded map, and still billed (${ha(f.hectares)}) until you delete it here.</p>
      ${alert('warning', 'There is no “relink”: an orphan can only be deleted.')}`,
  });
}

export function deleteOrphanPage(ctx: PageContext, f: OrphanFarm): Html {
  return confirmPage(ctx, {
    title: `Delete orphan farm “${f.name}”?`, active: '/admin/data', action: '/admin/data/delete', fields: { farm: String(f.id) },
    button: 'Delete farm', danger: true, cancel: '/admin/data',
    body: alert('error', html`Farm <code>#${f.id}</code> ${f.name} and its ${plural(f.parcel_count, 'parcel')}, with their crops and plants, are deleted
      permanently. Billing drops by ${ha(f.hectares)}. <strong>This cannot be undone.</strong>`, 'Permanent'),
  });
}

export function loginPage(opts: { email?: string; org?: string; error?: string; limited?: boolean }): Html {
  return bare('Sign in', html`<section class="card login">
  <div class="card-body">
    <h1>Sign in</h1>
    <p class="muted">Administer your organization's connected accounts, data and billing.</p>
    ${opts.error ? alert(opts.limited ? 'warning' : 'error', opts.error) : ''}
    <form method="post" action="/admin/login" class="stack">
      ${opts.org ? html`<input type="hidden" name="org" value="${opts.org}">` : ''}
      <label class="field"><span>Email</span><input type="email" name="email" value="${opts.email ?? ''}" autocomplete="username" required autofocus></label>
      <label class="field"><span>Password</span><input type="password" name="password" autocomplete="current-password" required></label>
      <button type="submit" class="btn btn-primary btn-block">Sign in</button>
    </form>
  </div>
</section>
<p class="bare-note">Admins are created by the operator: <code>npm run -s service -- create-admin</code></p>`);
}

export function errorPage(ctx: PageContext | null, status: number, title: string, message: string): Html {
  const body = html`<section class="card"><div class="card-body">${alert(status >= 500 ? 'error' : 'warning', message, `${status} · ${title}`)}
    <p><a class="btn btn-secondary" href="${ctx ? '/admin/members' : '/admin/login'}">${ctx ? 'Back to the admin panel' : 'Go to sign-in'}</a></p></div></section>`;
  return ctx ? layout(ctx, { title }, body) : bare(title, body);
}
