// A WMTS or WMS service's capabilities document, fetched by the host for the page: the page connects nowhere but
// home (core/page-policy.ts connect-src), and what it needs of the document — the layers, their tile matrix sets —
// it reads with OpenLayers' own parsers. Only addresses the layers' rules accept (https, or http from this
// computer: core/layers/layer-rules.ts), redirects followed only to such addresses, the answer bounded in time and
// size, and every failure a sentence with a stable code (source_unavailable). Each document read is kept (the
// host's folder): offline, a WMTS layer's tiles — an area kept offline among them — still need its tile matrices,
// so the last copy answers when the service cannot, marked stale.
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RpcError } from '../core/rpc.ts';
import { ensurePrivateDir } from '../platform/node/private-files.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import { serviceUrlProblem } from '../core/layers/layer-rules.ts';

/** The largest document read: a national service's WMTS capabilities run to a few hundred kilobytes. */
export const MAX_CAPABILITIES_BYTES = 8 * 1024 * 1024;
const TIMEOUT_MS = 20_000;
const MAX_REDIRECTS = 3;

const refuse = (message: string) => new RpcError(ApiErrorCode.sourceUnavailable, message);

/**
 * The document at `url`, from the service, else (offline, the service down) the last copy kept in `cacheDir`;
 * refused in words when neither has it.
 */
export async function capabilities(url: string, cacheDir: string, opts: { timeoutMs?: number; maxBytes?: number } = {}): Promise<{ text: string; url: string; stale: boolean }> {
  const file = join(cacheDir, `${createHash('sha256').update(url.trim()).digest('hex').slice(0, 32)}.xml`);
  try {
    const got = await fetchCapabilities(url, opts);
    try {
      // Written whole and renamed: a host stopped mid-write leaves the last copy, never half of one.
      ensurePrivateDir(cacheDir);
      writeFileSync(`${file}.tmp`, JSON.stringify(got), { mode: 0o600 });
      renameSync(`${file}.tmp`, file);
    } catch {
      // not kept: read from the service next time too
    }
    return { ...got, stale: false };
  } catch (err) {
    if (!(err instanceof RpcError) || !(err as RpcError & { unreachable?: boolean }).unreachable) throw err;
    try {
      const kept = JSON.parse(readFileSync(file, 'utf8')) as { text: string; url: string };
      if (typeof kept.text === 'string' && typeof kept.url === 'string') return { ...kept, stale: true };
    } catch {
      // none kept
    }
    throw err;
  }
}

/** The document at `url` (as typed, or its GetCapabilities request), and the address it was finally read from. */
export async function fetchCapabilities(url: string, opts: { timeoutMs?: number; maxBytes?: number } = {}): Promise<{ text: string; url: string }> {
  let at = url.trim();
  const why = serviceUrlProblem(at);
  if (why) throw refuse(why);
  const signal = AbortSignal.timeout(opts.timeoutMs ?? TIMEOUT_MS);
  for (let hop = 0; ; hop++) {
    let res: Response;
    try {
      res = await fetch(at, { redirect: 'manual', signal, headers: { accept: 'application/xml, text/xml;q=0.9, */*;q=0.1' } });
    } catch (err) {
      const timedOut = (err as Error).name === 'TimeoutError' || signal.aborted;
      throw Object.assign(refuse(timedOut ? `${host(at)} did not answer within ${Math.round((opts.timeoutMs ?? TIMEOUT_MS) / 1000)} s.` : `${host(at)} cannot be reached (offline, or the address is wrong).`), { unreachable: true });
    }
    if (res.status >= 300 && res.status < 400 && res.headers.get('location')) {
      await res.body?.cancel();
      const next = new URL(res.headers.get('location')!, at).href;
      const bad = serviceUrlProblem(next);
      if (bad) throw refuse(`${host(at)} sent the request on to ${host(next)}, which the app does not follow: ${bad}`);
      if (hop >= MAX_REDIRECTS) throw refuse(`${host(at)} redirected more than ${MAX_REDIRECTS} times.`);
      at = next;
      continue;
    }
    if (res.status !== 200) {
      await res.body?.cancel();
      throw refuse(`${host(at)} answered ${res.status} ${res.statusText}`.trim() + '.');
    }
    const text = await bounded(res, opts.maxBytes ?? MAX_CAPABILITIES_BYTES, at);
    if (!/<(\w+:)?(Capabilities|WMS_Capabilities|WMT_MS_Capabilities)\b/.test(text.slice(0, 4096))) {
      throw refuse(`${host(at)} did not answer with a WMTS or WMS capabilities document.`);
    }
    return { text, url: at };
  }
}

async function bounded(res: Response, max: number, at: string): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > max) {
    await res.body?.cancel();
    throw refuse(`${host(at)}'s document is ${(declared / 1048576).toFixed(1)} MB: at most ${max / 1048576} MB is read.`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > max) throw refuse(`${host(at)}'s document is over ${max / 1048576} MB: at most ${max / 1048576} MB is read.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const host = (url: string): string => {
  try {
    return new URL(url).host;
  } catch {
    return 'The service';
  }
};
