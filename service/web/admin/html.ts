// HTML building blocks of the admin panel. Every interpolated value is escaped unless it is already Html,
// so a page can only contain markup this file (or a page template) wrote on purpose.

export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type Part = Html | string | number | boolean | null | undefined | readonly Part[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

function render(part: Part): string {
  if (part instanceof Html) return part.value;
  if (Array.isArray(part)) return part.map(render).join('');
  if (part === null || part === undefined || part === false || part === true) return '';
  return escapeHtml(String(part));
}

/** Tagged template: `html\`<td>${value}</td>\`` escapes value; nested html`` fragments pass through. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1]!;
  });
  return new Html(out);
}

const HA = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const INT = new Intl.NumberFormat('en-US');
export const ha = (n: number): string => `${HA.format(n)} ha`;
export const int = (n: number): string => INT.format(n);
export const plural = (n: number, one: string, many = `${one}s`): string => `${int(n)} ${n === 1 ? one : many}`;
/** Dates as the admin reads them: UTC, to the minute, with no locale guessing on the server. */
export const date = (iso: string | null): string => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : '');
/** The day only, for narrow columns; the minute is in the tooltip. */
export const day = (iso: string): Html => html`<time datetime="${iso}" title="${date(iso)}">${iso.slice(0, 10)}</time>`;

export type BadgeKind = 'active' | 'deactivated' | 'revoked' | 'orphan' | 'default' | 'agreed';
export const badge = (kind: BadgeKind, text: string = kind): Html => html`<span class="badge badge-${kind}">${text}</span>`;

export interface PageContext {
  organizationName: string;
  email: string;
  csrfToken: string;
}

export const csrfField = (ctx: Pick<PageContext, 'csrfToken'>): Html => html`<input type="hidden" name="_csrf" value="${ctx.csrfToken}">`;

/** A one-button POST form: every state change goes through one of these, with the session's CSRF token. */
export function postButton(ctx: PageContext, action: string, fields: Record<string, string>, label: string, cls = 'btn btn-sm'): Html {
  return html`<form method="post" action="${action}" class="inline">${csrfField(ctx)}${Object.entries(fields).map(
    ([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`,
  )}<button type="submit" class="${cls}">${label}</button></form>`;
}

export const linkButton = (href: string, label: string, cls = 'btn btn-sm btn-secondary'): Html => html`<a class="${cls}" href="${href}">${label}</a>`;

export type AlertKind = 'success' | 'error' | 'warning' | 'info';
export const alert = (kind: AlertKind, body: Part, title?: string): Html =>
  html`<div class="alert alert-${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${title ? html`<strong class="alert-title">${title}</strong>` : ''}<div>${body}</div></div>`;

export const NAV = [
  { href: '/admin/members', label: 'Members', section: 'Settings' },
  { href: '/admin/data', label: 'Data Management', section: 'Settings' },
  { href: '/admin/billing', label: 'Billing', section: 'Organization' },
  { href: '/admin/api-keys', label: 'API keys', section: 'Organization' },
  { href: '/admin/limits', label: 'Account limits', section: 'Organization' },
] as const;
export type NavHref = (typeof NAV)[number]['href'];

export const LOGO = new Html('<svg class="logo" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true"><path fill="currentColor" d="M4 20c0-8 5-14 16-16-1 9-6 15-14 15.5V22H4v-2Zm3-2c5-1 9-5 10.5-11C12 8.5 8.5 12 7 18Z"/></svg>');

function document(title: string, bodyClass: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${title} · Furrow admin</title>
<link rel="stylesheet" href="/admin/admin.css">
</head>
<body class="${bodyClass}">
${body}
</body>
</html>
`;
}

export interface LayoutOptions { title: string; active?: NavHref; flash?: { kind: 'success' | 'error'; text: string } | null; lead?: Part }

/** A signed-in page: the top bar with the organization, the navigation and sign-out, then the content. */
export function layout(ctx: PageContext, opts: LayoutOptions, content: Part): Html {
  const current = NAV.find((n) => n.href === opts.active);
  return document(opts.title, 'app', html`<header class="topbar">
  <a class="brand" href="/admin/members">${LOGO}<span>Furrow</span><span class="brand-sub">Admin</span></a>
  <span class="org" title="Organization">${ctx.organizationName}</span>
  <nav class="nav" aria-label="Admin sections">${NAV.map((n) => html`<a href="${n.href}"${n.href === opts.active ? new Html(' class="active" aria-current="page"') : ''}>${n.label}</a>`)}</nav>
  <div class="user"><span class="user-email">${ctx.email}</span>${postButton(ctx, '/admin/logout', {}, 'Sign out', 'btn btn-sm btn-ghost')}</div>
</header>
<main class="main">
  ${current ? html`<p class="crumbs">${current.section} <span aria-hidden="true">›</span> ${current.label}</p>` : ''}
  <h1>${opts.title}</h1>
  ${opts.lead ? html`<p class="lead">${opts.lead}</p>` : ''}
  ${opts.flash ? alert(opts.flash.kind, opts.flash.text) : ''}
  ${content}
</main>`);
}

/** Pages without a session: sign-in and errors met before signing in. */
export function bare(title: string, content: Part): Html {
  return document(title, 'bare', html`<main class="bare-main"><div class="bare-brand">${LOGO}<span>Furrow</span><span class="brand-sub">Admin</span></div>${content}</main>`);
}

export function table(headers: ReadonlyArray<string | { label: string; cls: string }>, rows: Part[], empty: Part, foot?: Part): Html {
  if (rows.length === 0) return html`<div class="empty">${empty}</div>`;
  return html`<div class="table-wrap"><table>
<thead><tr>${headers.map((h) => (typeof h === 'string' ? html`<th>${h}</th>` : html`<th class="${h.cls}">${h.label}</th>`))}</tr></thead>
<tbody>${rows}</tbody>${foot ? html`<tfoot>${foot}</tfoot>` : ''}
</table></div>`;
}

export const card = (title: Part, body: Part, extra?: Part): Html =>
  html`<section class="card">${title ? html`<div class="card-head"><h2>${title}</h2>${extra ?? ''}</div>` : ''}<div class="card-body">${body}</div></section>`;
