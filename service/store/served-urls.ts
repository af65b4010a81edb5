// The addresses the service last served with, kept in its store: the admin CLI, run on the same DATA_DIR without
// the service's environment, builds the embedded_url (and the demo's links) from them instead of guessing
// http://127.0.0.1:8080.

export interface ServedUrls { public_url: string; embed_url: string; since: string }

/** What the store keeps: the urls as the service resolved them when it started listening, and when. */
export const servedUrlsOf = (urls: { publicUrl: string; embedUrl: string }): ServedUrls =>
  ({ public_url: urls.publicUrl, embed_url: urls.embedUrl, since: new Date().toISOString() });

/** A kept value read back, or null when it is not one (written by another version, damaged). */
export function parseServedUrls(text: string): ServedUrls | null {
  try {
    const v = JSON.parse(text) as Partial<ServedUrls>;
    return typeof v.public_url === 'string' && typeof v.embed_url === 'string' ? { public_url: v.public_url, embed_url: v.embed_url, since: String(v.since ?? '') } : null;
  } catch {
    return null;
  }
}
