// The embedded map's HTML and response headers. The HTML is static: no account data is ever written into it
// (the browser code fetches the data), so nothing in it needs escaping and the CSP can forbid inline code.

/**
 * The CSP sources an integrator may list in EMBED_FRAME_ANCESTORS: keywords and host sources separated by spaces.
 * Anything else (';' ',' quotes, newlines) could end the directive and smuggle in a weaker policy.
 */
const SOURCE = /^(?:'self'|'none'|[A-Za-z0-9*:/._~%[\]-]+)$/;

export function frameAncestors(value: string): string {
  const sources = value.trim().split(/\s+/).filter(Boolean);
  const bad = sources.filter((s) => !SOURCE.test(s));
  if (sources.length === 0 || bad.length > 0) {
    throw new Error(`EMBED_FRAME_ANCESTORS must be CSP sources separated by spaces (e.g. "'self' https://partner.example.com"); not valid: ${bad.join(' ') || '(empty)'}`);
  }
  return sources.join(' ');
}

/**
 * Headers of every /embed response. The OpenStreetMap hosts are the only outside origin (the optional basemap);
 * the tiles are requested with referrerPolicy 'origin-when-cross-origin' by OpenLayers, so OSM learns the
 * embedding origin its usage policy asks for but never the page URL with its auth_id.
 */
export function securityHeaders(ancestors: string): Record<string, string> {
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: https://tile.openstreetmap.org https://*.tile.openstreetmap.org",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${frameAncestors(ancestors)}`,
  ].join('; ');
  return {
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-robots-tag': 'noindex, nofollow',
  };
}

const head = (title: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${title}</title>
<link rel="stylesheet" href="app.css">`;

/** The page at {embed_url}/?auth_id=…; client/main.ts builds the rest. Relative URLs keep it working under any prefix. */
export const SHELL_HTML = `${head('Parcel map')}
<script src="app.js" defer></script>
</head>
<body>
<main class="embed" id="embed">
  <div id="map" class="map" tabindex="0" role="application" aria-label="Map of parcels. Arrow keys pan, plus and minus zoom, Escape closes the details."></div>
  <noscript><p class="status status--error">The parcel map needs JavaScript.</p></noscript>
</main>
</body>
</html>
`;

export interface ErrorPage { status: number; title: string; message: string }

export const MISSING_AUTH: ErrorPage = {
  status: 400, title: 'Map link incomplete', message: 'This map link has no auth_id. Open the embedded_url exactly as it was given to you.',
};
/** A link with a parameter besides auth_id and the metadata filters: a misspelt filter must not show every parcel. */
export const UNKNOWN_PARAMETER: ErrorPage = {
  status: 400, title: 'Map link not understood',
  message: 'This map link has a parameter the map does not know. Besides auth_id, a link may only carry metadata[key]=value filters.',
};
/** One answer for unknown, revoked (rotated), deactivated and deleted: which of them it is would tell something about an account. */
export const INVALID_AUTH: ErrorPage = {
  status: 404, title: 'Map link not valid', message: 'This map link is not valid. It may have been revoked; ask for a new link.',
};

/** Static text only (the pages above), so no escaping is needed; the CSS is the bundle's, no inline style. */
export const errorHtml = (p: ErrorPage): string => `${head(p.title)}
</head>
<body class="error-page">
<main class="error-card">
  <h1>${p.title}</h1>
  <p>${p.message}</p>
</main>
</body>
</html>
`;
