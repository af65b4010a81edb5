// The start page at GET /: what this service serves and where. Static text only: no account data, no credentials,
// so nothing needs escaping and one page serves everyone.
import { LOGO } from '../admin/html.ts';

/** The leaf of LOGO, for the favicon. */
export const LOGO_PATH = /\bd="([^"]+)"/.exec(LOGO.value)![1]!;

/** The auth_id shape the embedded map accepts (service/web/embed/routes.ts); the browser checks it before sending. */
const AUTH_ID_PATTERN = '[A-Za-z0-9_\\-]{16,128}';

export const LANDING_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Furrow parcel service</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/admin/admin.css">
<link rel="stylesheet" href="/landing.css">
</head>
<body class="landing">
<main class="landing-main">
  <div class="landing-brand">${LOGO.value}<span>Furrow</span><span class="brand-sub">Parcel service</span></div>
  <h1>Agricultural Parcel Management Service</h1>
  <p class="lead">Accounts, farms, parcels, crops, plants and billing over HTTP/JSON, with an embedded map for each
  connected account and an admin panel for the organization.</p>
  <div class="landing-grid">
    <section class="card" id="embed">
      <div class="card-head"><h2>Embedded map</h2></div>
      <div class="card-body">
        <p>Each connected account has its own map link, its <code>embedded_url</code>
        (<code>/embed/?auth_id=…</code>), given when the account is created. <code>npm start</code> prints the
        demo account's.</p>
        <form class="stack" method="get" action="/embed/">
          <label class="field"><span>auth_id</span>
            <input type="text" name="auth_id" required pattern="${AUTH_ID_PATTERN}" autocomplete="off" spellcheck="false" placeholder="from the embedded_url">
          </label>
          <button type="submit" class="btn btn-primary">Open the map</button>
        </form>
      </div>
    </section>
    <section class="card" id="admin">
      <div class="card-head"><h2>Admin panel</h2></div>
      <div class="card-body">
        <p>Connected accounts, API keys, parcel limits, data and billing of an organization. Sign in with an admin's
        e-mail and password: <code>npm start</code> prints the demo's, <code>npm run -s service -- create-admin</code>
        adds one.</p>
        <a class="btn btn-primary" href="/admin/">Open the admin panel</a>
      </div>
    </section>
    <section class="card" id="api">
      <div class="card-head"><h2>API</h2></div>
      <div class="card-body">
        <p>Every endpoint, schema and error as OpenAPI 3.0.3. Requests carry the organization's
        <code>x-api-key</code> (with <code>Service-Account: acc-…</code> to act for an account) or an account's
        <code>Authorization: Bearer …</code> token.</p>
        <a class="btn btn-primary" href="/api/openapi.json">OpenAPI document</a>
      </div>
    </section>
  </div>
  <p class="landing-foot muted small">Health check: <a href="/healthz">/healthz</a></p>
</main>
</body>
</html>
`;
