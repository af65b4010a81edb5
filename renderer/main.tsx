// The renderer's entry: connect to the app's backend, then show the app (or say why it cannot).
import { createRoot } from 'react-dom/client';
import 'ol/ol.css';
import { canReconnect, connectBackend, waitForHost } from './backend.ts';
import { App } from './App.tsx';
import { set } from './store.ts';
import { mapFontLoaded } from './features/map/map-font.ts';

// The printed address pasted into a tab already on the app changes only the fragment, which loads nothing: start
// again with its token.
window.addEventListener('hashchange', () => { if (new URLSearchParams(location.hash.slice(1)).has('token')) location.reload(); });

const root = createRoot(document.getElementById('root')!);
// The app stopped: a browser tab it let in waits for it to come back and gets in again by itself.
const lost = (reason: string) => {
  const back = canReconnect();
  set({ backendLost: { reason, reconnecting: back } });
  if (back) waitForHost();
};
// The map's labels' font loaded (from the page's own files) while the backend connects, before the map draws a
// label: a canvas never redraws text by itself once a font comes (features/map/map-font.ts).
Promise.all([connectBackend(lost), mapFontLoaded()]).then(
  ([backend]) => root.render(<App backend={backend} />),
  (err: unknown) => root.render(<p className="fatal" role="alert">{err instanceof Error ? err.message : String(err)}</p>),
);
