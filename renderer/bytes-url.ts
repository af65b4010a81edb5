// The one way the page turns a bytes path the host answered (core/bytes-protocol.ts: /bytes/<key>/<id>/<name>, e.g.
// exportDownload's) into a URL it can fetch, link or show: on its shell's origin — app://furrow in Electron's window,
// where main serves it by asking the host; the page's own origin in browser mode, where the host's loopback server
// serves it. Anything else is refused: a page never builds an address to elsewhere out of an answer.
import { isBytesPath } from '../core/bytes-protocol.ts';
import { APP_ORIGIN } from '../core/page-policy.ts';
import { electronBridge } from './electron-port.ts';

export function bytesUrl(path: string, w: Window = window): string {
  if (!isBytesPath(path)) throw new Error(`Not a bytes path: ${path.slice(0, 100)}`);
  return `${electronBridge(w) ? APP_ORIGIN : w.location.origin}${path}`;
}
