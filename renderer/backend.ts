// The renderer's one way to the app's backend: core/api.ts's client over browser mode's WebSocket. The token comes
// in the URL's fragment (never sent to any server), is kept for this tab's reloads in sessionStorage (this origin
// only) and removed from the address bar.
import { API, API_VERSION, type Api, type ApiEvent } from '../core/api.ts';
import { createClient, type Client } from '../core/rpc.ts';
import { webSocketPort } from './ws-port.ts';

export type Backend = Client<Api, ApiEvent>;
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

export const preferredAccount = (): string | null => sessionStorage.getItem('furrow-account');

export async function connectBackend(onLost: (reason: string) => void): Promise<Backend> {
  const token = launchToken();
  if (!token) throw new Error('This page needs the address the app printed when it started (it holds this launch\'s token).');
  const port = webSocketPort(`ws://${location.host}/`, token);
  port.onClose(onLost);
  await port.opened.catch(() => {
    throw new Error('The app refused this page: open the address it printed at its latest start.');
  });
  const client = createClient<Api, ApiEvent>(API, port);
  port.onClose((reason) => client.close(reason));
  await client.api.hello({ apiVersion: API_VERSION });
  return client;
}
