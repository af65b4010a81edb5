// The renderer's one way to the app's backend: core/api.ts's client over Electron's MessagePort (electron-port.ts) or
// browser mode's WebSocket. For the WebSocket, the token comes in the URL's fragment (never sent to any server), is
// kept for this tab's reloads in sessionStorage (this origin only) and removed from the address bar.
import { API, API_EVENTS, API_VERSION, type Api, type ApiEvents } from '../core/api.ts';
import { createClient, type Client } from '../core/rpc.ts';
import { webSocketPort } from './ws-port.ts';
import { electronBridge, messagePortPort, requestPort } from './electron-port.ts';

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
  if (!token) throw new Error('This page needs the address the app printed when it started (it holds this launch\'s token).');
  const port = webSocketPort(`ws://${location.host}/`, token);
  port.onClose(onLost);
  await port.opened.catch(() => {
    throw new Error('The app refused this page: open the address it printed at its latest start.');
  });
  const client = createClient(API, port, API_EVENTS);
  port.onClose((reason) => client.close(reason));
  return client;
}
