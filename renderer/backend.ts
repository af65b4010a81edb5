// The renderer's one way to the app's backend: core/api.ts's client over Electron's MessagePort (electron-port.ts) or
// browser mode's WebSocket. For the WebSocket, the token comes in the URL's fragment (never sent to any server), is
// kept for this tab's reloads in sessionStorage (this origin only) and removed from the address bar. The host hands a
// tab it let in a reconnect pass (core/tab-pass.ts), kept the same way: after the app restarts (on the same port,
// app/start.ts), the tab gets back in with it and reloads by itself (waitForHost).
import { API, API_EVENTS, API_VERSION, type Api, type ApiEvents } from '../core/api.ts';
import { createClient, type Client } from '../core/rpc.ts';
import { webSocketPort } from './ws-port.ts';
import { electronBridge, messagePortPort, requestPort } from './electron-port.ts';
import { dropPass, heldPass, hostProves, keepPass } from './host-proof.ts';

export type Backend = Client<Api, ApiEvents>;
export type AppApi = Backend['api'];

function launchToken(): string | null {
  const hash = new URLSearchParams(location.hash.slice(1));
  const fromUrl = hash.get('token');
  if (fromUrl) {
    sessionStorage.setItem('furrow-token', fromUrl);
    // The account the launcher connected (the embedded demo's), shown first when the mirror holds several.
    const account = hash.get('account');
    if (account) sessionStorage.setItem('furrow-account', account);
    history.replaceState(null, '', location.pathname);
    return fromUrl;
  }
  return sessionStorage.getItem('furrow-token');
}

/** The account to show first: the launcher's (browser mode keeps it with the token; Electron's main puts it in the fragment). */
export const preferredAccount = (): string | null => new URLSearchParams(location.hash.slice(1)).get('account') ?? sessionStorage.getItem('furrow-account');

/**
 * The client over the transport this page has: Electron's MessagePort when the preload gave the page `window.furrow`,
 * else browser mode's WebSocket. Either way the same core/rpc.ts client on the same contract.
 */
export async function connectBackend(onLost: (reason: string) => void): Promise<Backend> {
  const bridge = electronBridge();
  const client = bridge ? createClient(API, messagePortPort(await requestPort(bridge)), API_EVENTS) : await webSocketClient(onLost);
  await client.api.hello({ apiVersion: API_VERSION });
  return client;
}

async function webSocketClient(onLost: (reason: string) => void): Promise<Backend> {
  const token = launchToken();
  const held = heldPass();
  if (!token && !held) throw new Error('This page needs the address the app printed when it started (it holds this launch\'s token).');
  // The pass only to a server that proved it is the app: while the app was stopped, anything could take its port.
  const pass = held && await hostProves(held) ? held.pass : null;
  const port = webSocketPort(`ws://${location.host}/`, { token: token ?? '', pass, onPass: keepPass });
  port.onClose(onLost);
  await port.opened.catch(() => {
    dropPass(); // spent, lapsed or unproved: it would only be refused again
    throw new Error('The app refused this page: open the address it printed at its latest start.');
  });
  const client = createClient(API, port, API_EVENTS);
  port.onClose((reason) => client.close(reason));
  return client;
}

/** Whether this page came through browser mode's WebSocket, and so can get back in by itself after a restart. */
export const canReconnect = (): boolean => !electronBridge() && heldPass() !== null;

/**
 * Browser mode, the app stopped: asks every `everyMs` whether the server at the page's port is the app again (started
 * anew on the same port, proving it issued this tab's pass: host-proof.ts), then reloads the page, which connects with
 * its pass. Whatever else answers there meanwhile is never loaded. Returns the function that stops asking.
 */
export function waitForHost(everyMs = 1_000): () => void {
  let stopped = false;
  const ask = async () => {
    while (!stopped) {
      await new Promise((r) => setTimeout(r, everyMs));
      if (stopped) return;
      const held = heldPass();
      if (!held) return;
      if (await hostProves(held) && !stopped) {
        location.reload();
        return;
      }
    }
  };
  void ask();
  return () => { stopped = true; };
}
