// The page's one way from a bytes path to a URL: on its shell's origin (Electron's app://furrow, or the page's own in
// browser mode), and only for a bytes path. A stand-in window: the page's location, and `furrow` in Electron.
import { expect, it } from 'vitest';
import { bytesUrl } from './bytes-url.ts';

const path = `/bytes/${'k'.repeat(43)}/${'a'.repeat(32)}/Finca%20Norte.geojson`;
const browser = (origin: string) => ({ location: { origin } }) as unknown as Window;
const electron = { location: { origin: 'null' }, furrow: { connect() {} } } as unknown as Window;

it("puts a bytes path on the shell's origin", () => {
  expect(bytesUrl(path, browser('http://127.0.0.1:41234'))).toBe(`http://127.0.0.1:41234${path}`);
  expect(bytesUrl(path, browser('http://localhost:41234'))).toBe(`http://localhost:41234${path}`);
  expect(bytesUrl(path, electron)).toBe(`app://furrow${path}`);
});

it('refuses anything that is not a bytes path', () => {
  for (const p of ['https://evil.example/x', '//evil.example/bytes/x', '/index.html', `/bytes/${'k'.repeat(43)}/${'a'.repeat(32)}/..`, `${path}?x=1`]) {
    expect(() => bytesUrl(p, browser('http://127.0.0.1:1')), p).toThrow(/Not a bytes path/);
  }
});
