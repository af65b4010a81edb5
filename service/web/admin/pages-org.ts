// Organization pages: Billing, API keys and account tokens, Account limits.
import type { Billing } from '../../../core/schemas/billing.ts';
import type { ApiKeyInfo } from '../../store/organizations.ts';
import type { SigningKeyInfo } from '../../store/tokens.ts';
import type { AccountRow } from '../../store/accounts.ts';
import type { Flash } from '../../store/admins.ts';
import { DEFAULT_MAX_PARCEL_HECTARES } from '../../../core/parcels/limits.ts';
import { confirmPage } from './pages.ts';
import { alert, badge, card, csrfField, date, ha, html, int, layout, linkButton, plural, postButton, table, type Html, type PageContext } from './html.ts';

const th = (label: string) => ({ label, cls: 'num' });
const pct = (part: number, total: number): number => (total > 0 ? (part / total) * 100 : 0);
// A <meter> draws the share without inline styles, which the CSP forbids.
const share = (part: number, total: number): Html =>
  html`<span class="share"><meter min="0" max="100" value="${pct(part, total).toFixed(1)}"></meter><span>${pct(part, total).toFixed(1)} %</span></span>`;

export function billingPage(ctx: PageContext, b: Billing): Html {
  const active = b.accounts.filter((a) => a.state === 'active');
  const deactivatedHa = b.accounts.filter((a) => a.state === 'deactivated').reduce((s, a) => s + a.hectares, 0);
  const rows = [...b.accounts].sort((x, y) => y.hectares - x.hectares).map((a) => html`<tr>
    <td><div class="who"><span class="who-main">${a.account_email}</span><code class="who-sub">${a.account}</code></div></td><td>${badge(a.state)}</td>
    <td class="num">${int(a.farms)}</td><td class="num">${int(a.parcels)}</td><td class="num">${ha(a.hectares)}</td><td>${share(a.hectares, b.total_hectares)}</td></tr>`);
  rows.push(html`<tr class="row-orphans"><td><span class="who-main">Orphan farms</span><div class="who-sub">not linked to any account</div></td><td>${badge('orphan')}</td>
    <td class="num">${int(b.orphans.farms)}</td><td class="num">${int(b.orphans.parcels)}</td><td class="num">${ha(b.orphans.hectares)}</td><td>${share(b.orphans.hectares, b.total_hectares)}</td></tr>`);
  const parcels = b.accounts.reduce((s, a) => s + a.parcels, 0) + b.orphans.parcels;
  const farms = b.accounts.reduce((s, a) => s + a.farms, 0) + b.orphans.farms;
  const foot = html`<tr><td colspan="2">Total billable</td><td class="num">${int(farms)}</td><td class="num">${int(parcels)}</td><td class="num">${ha(b.total_hectares)}</td><td></td></tr>`;
  return layout(ctx, {
    title: 'Billing', active: '/admin/billing',
    lead: 'Billing is based on the total hectares of parcels. Every parcel counts: active and deactivated accounts’ and orphan farms’.',
  }, html`<div class="stats">
    <div class="stat stat-main"><span class="stat-label">Total billable</span><span class="stat-value" data-test="total-hectares">${ha(b.total_hectares)}</span><span class="stat-note">${plural(parcels, 'parcel')} on ${plural(farms, 'farm')}</span></div>
    <div class="stat"><span class="stat-label">Active accounts</span><span class="stat-value">${int(active.length)}</span><span class="stat-note">${ha(active.reduce((s, a) => s + a.hectares, 0))}</span></div>
    <div class="stat"><span class="stat-label">Deactivated accounts</span><span class="stat-value">${int(b.accounts.length - active.length)}</span><span class="stat-note">${ha(deactivatedHa)} still billed</span></div>
    <div class="stat${b.orphans.hectares > 0 ? ' stat-warn' : ''}"><span class="stat-label">Orphans’ share</span><span class="stat-value" data-test="orphan-hectares">${ha(b.orphans.hectares)}</span><span class="stat-note">${pct(b.orphans.hectares, b.total_hectares).toFixed(1)} % · ${plural(b.orphans.farms, 'farm')}</span></div>
  </div>
  ${card('Per account', table(['Account', 'State', th('Farms'), th('Parcels'), th('Hectares'), 'Share'], rows, '', foot))}
  <p class="muted small">The same numbers: <code>GET /api/billing/</code> with the API key, or <code>npm run -s service -- billing --org ${b.organization}</code>.</p>`);
}

/** The organization's account_access signing keys, with the two ways to act on them. */
function tokensCard(ctx: PageContext, signing: SigningKeyInfo[]): Html {
  const rows = signing.map((k) => html`<tr><td><code>${k.kid}</code></td><td class="muted nowrap">${date(k.created)}</td>
    <td class="nowrap">${k.retired ? html`${badge('revoked', 'retired')} <span class="muted small">verifies tokens it signed until ${date(k.verifies_until)}</span>` : badge('active', 'signing')}</td></tr>`);
  return card('Account tokens', html`<p class="muted">Connected accounts’ <code>account_access</code> tokens (3 hours) are signed with the
    organization’s own key. <strong>Rotate</strong> for routine hygiene: new tokens get a new key and those already issued keep working until they
    expire. <strong>Revoke every token</strong> if a key or token may have leaked: all are refused at once and clients fetch new ones.</p>
    ${table(['Key id', 'Created', 'Status'], rows, 'No token issued yet: a key is created with the first one.')}
    <div class="form-actions">${postButton(ctx, '/admin/tokens/rotate', {}, 'Rotate signing key', 'btn btn-sm btn-secondary')}
    ${linkButton('/admin/tokens/revoke', 'Revoke every token…', 'btn btn-sm btn-danger-outline')}</div>`);
}

export function revokeTokensPage(ctx: PageContext): Html {
  return confirmPage(ctx, {
    title: 'Revoke every account token?', active: '/admin/api-keys', action: '/admin/tokens/revoke', fields: {},
    button: 'Revoke every token', danger: true, cancel: '/admin/api-keys',
    body: html`<p>Every <code>account_access</code> token of every connected account is refused at once with <em>401 Invalid token</em>,
      and the organization gets a new signing key. Integrations holding the API key fetch fresh tokens
      (<code>POST /api/accounts/{id}/token/</code>); the API keys themselves keep working.</p>`,
  });
}

export function apiKeysPage(
  ctx: PageContext, flash: Flash | null, keys: ApiKeyInfo[], signing: SigningKeyInfo[], created?: { api_key: string; prefix: string; label: string },
): Html {
  const live = keys.filter((k) => !k.revoked).length;
  const rows = keys.map((k) => html`<tr${created?.prefix === k.prefix ? html` class="row-new"` : ''}>
    <td><code>${k.prefix}…</code></td><td>${k.label || html`<span class="muted">—</span>`}</td><td class="muted nowrap">${date(k.created)}</td>
    <td class="nowrap">${k.revoked ? html`${badge('revoked')} <span class="muted small">${date(k.revoked)}</span>` : badge('active')}</td>
    <td class="actions">${k.revoked ? '' : linkButton(`/admin/api-keys/revoke?prefix=${encodeURIComponent(k.prefix)}`, 'Revoke…', 'btn btn-sm btn-danger-outline')}</td></tr>`);
  const shown = created ? alert('success', html`<p>Copy it now: it is shown <strong>only once</strong>. Only its hash is stored, so it cannot be shown again;
      if it is lost, create another and revoke this one.</p>
      <label class="field"><span>API key ${created.label ? html`“${created.label}”` : ''}</span>
      <input type="text" class="key" readonly value="${created.api_key}" data-test="new-api-key" spellcheck="false"></label>`, 'Your new API key') : '';
  return layout(ctx, {
    title: 'API keys', active: '/admin/api-keys', flash,
    lead: html`The organization’s API keys, sent as <code>x-api-key</code>. Keys are listed by their prefix; the full key is shown only when it is created.`,
  }, html`${shown}
  ${card('Create an API key', html`<form method="post" action="/admin/api-keys" class="row-form">${csrfField(ctx)}
    <label class="field grow"><span>Label <span class="muted">(optional: where the key is used)</span></span><input type="text" name="label" maxlength="100" placeholder="e.g. ERP integration"></label>
    <button type="submit" class="btn btn-primary">Create API key</button></form>`)}
  ${card(html`Keys <span class="count">${int(live)} active · ${int(keys.length - live)} revoked</span>`,
    table(['Prefix', 'Label', 'Created', 'Status', ''], rows, 'No API keys.'))}
  ${tokensCard(ctx, signing)}`);
}

export function revokeKeyPage(ctx: PageContext, k: ApiKeyInfo, lastActive: boolean): Html {
  return confirmPage(ctx, {
    title: `Revoke API key ${k.prefix}…?`, active: '/admin/api-keys', action: '/admin/api-keys/revoke', fields: { prefix: k.prefix },
    button: 'Revoke key', danger: true, cancel: '/admin/api-keys',
    body: html`<p>Every integration using <code>${k.prefix}…</code>${k.label ? html` (“${k.label}”)` : ''}, created ${date(k.created)}, gets
      <em>401 Invalid API key</em> at once, and so does every account token it issued (<em>401 Invalid token</em>). This cannot be
      undone: when rotating, create the new key and deploy it first.</p>
      ${lastActive ? alert('warning', 'This is the organization’s last active API key: after revoking it, nothing can call the API until a new key is created.') : ''}`,
  });
}

export function limitsPage(ctx: PageContext, flash: Flash | null, accounts: AccountRow[]): Html {
  const rows = accounts.map((a) => html`<tr>
    <td><div class="who"><span class="who-main">${a.account_email}</span><code class="who-sub">${a.id}</code></div></td><td>${badge(a.state)}</td>
    <td class="num">${ha(a.max_parcel_hectares ?? DEFAULT_MAX_PARCEL_HECTARES)}</td>
    <td>${a.max_parcel_hectares === null ? badge('default') : badge('agreed')}</td>
    <td class="actions"><form method="post" action="/admin/limits" class="inline-form">${csrfField(ctx)}<input type="hidden" name="account" value="${a.id}">
      <label class="sr-only" for="limit-${a.id}">New limit for ${a.account_email} in hectares</label>
      <input id="limit-${a.id}" class="input-sm" type="number" name="hectares" min="0.01" step="any" placeholder="ha" value="${a.max_parcel_hectares ?? ''}">
      <button type="submit" name="action" value="set" class="btn btn-sm btn-primary">Save</button>
      ${a.max_parcel_hectares === null ? '' : html`<button type="submit" name="action" value="default" formnovalidate class="btn btn-sm btn-secondary">Restore default</button>`}
    </form></td></tr>`);
  return layout(ctx, {
    title: 'Account limits', active: '/admin/limits', flash,
    lead: html`The maximum size of one parcel, per account. Unless another limit is agreed with the account it is ${DEFAULT_MAX_PARCEL_HECTARES} ha;
      a parcel over its account’s limit is refused by the API (<code>area_over_limit</code>).`,
  }, card('Maximum parcel size', table(['Account', 'State', th('Limit'), 'Source', { label: 'Change', cls: 'actions' }], rows, 'No connected accounts yet.')));
}
