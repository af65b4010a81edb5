// The page's side of Electron's hand-over (electron/preload.ts posts the port to the page's window): the port is
// taken only from this window on its own origin, and a backend that never answers is said readably. Electron
// cannot run here: a stand-in window (an EventTarget with a location) and the platform's own MessageChannel.
import { expect, it } from 'vitest';
import { messagePortPort, requestPort } from './electron-port.ts';

function standInWindow(origin = 'app://furrow') {
  return Object.assign(new EventTarget(), { location: { origin } }) as unknown as Window;
}
const post = (w: Window, init: { source: unknown; origin: string; data: unknown; ports: MessagePort[] }) =>
  w.dispatchEvent(Object.assign(new Event('message'), init));

it('takes the port from its own window and origin only, and it carries messages', async () => {
  const w = standInWindow();
  const { port1, port2 } = new MessageChannel();
  const asked: number[] = [];
  const got = requestPort({ connect: () => asked.push(1) }, w, 5_000);
  expect(asked).toEqual([1]);
  const other = new MessageChannel();
  post(w, { source: {}, origin: 'app://furrow', data: { furrow: 'port' }, ports: [other.port1] }); // another frame
  post(w, { source: w, origin: 'https://evil.example', data: { furrow: 'port' }, ports: [other.port1] }); // another origin
  post(w, { source: w, origin: 'app://furrow', data: 'something else', ports: [other.port1] });
  post(w, { source: w, origin: 'app://furrow', data: { furrow: 'port' }, ports: [port1] });
  const port = await got;
  expect(port).toBe(port1);
  const echoed = new Promise((resolve) => messagePortPort(port).onMessage(resolve));
  port2.postMessage({ t: 'event', event: { type: 'accounts' } });
  await expect(echoed).resolves.toEqual({ t: 'event', event: { type: 'accounts' } });
  port1.close();
  port2.close();
  other.port1.close();
});

it('says what to do when no port comes', async () => {
  await expect(requestPort({ connect: () => {} }, standInWindow(), 50)).rejects.toThrow(/did not answer: restart the app/);
});
