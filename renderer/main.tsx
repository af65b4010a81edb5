// The renderer's entry: connect to the app's backend, then show the app (or say why it cannot).
import { createRoot } from 'react-dom/client';
import 'ol/ol.css';
import { connectBackend } from './backend.ts';
import { App } from './App.tsx';
import { set } from './store.ts';

// The printed address pasted into a tab already on the app changes only the fragment, which loads nothing: start
// again with its token.
window.addEventListener('hashchange', () => { if (new URLSearchParams(location.hash.slice(1)).has('token')) location.reload(); });

const root = createRoot(document.getElementById('root')!);
connectBackend((reason) => set({ backendLost: reason })).then(
  (backend) => root.render(<App backend={backend} />),
  (err: unknown) => root.render(<p className="fatal" role="alert">{err instanceof Error ? err.message : String(err)}</p>),
);
