// The app's sealed credential store: the secrets never stand in clear on disk, only the key that sealed them opens
// them (a wrong key or a changed byte is refused with a way out, and the error quotes nothing of the file), and
// accounts connected with the plain file are sealed and the plain file removed.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SealedCredentialStore } from './sealed-credentials.ts';
import { loadCredentials, saveCredentials } from './credentials.ts';

let home: string;
beforeEach(() => { home = mkdtempSync(join(tmpdir(), 'furrow-sealed-')); });
afterEach(() => { rmSync(home, { recursive: true, force: true }); });

const KEY = 'fk_live_0123456789abcdefSECRET';

describe('SealedCredentialStore', () => {
  it('keeps records only as ciphertext, readable by the user alone, and gives them back with the same key', () => {
    const key = randomBytes(32);
    const store = new SealedCredentialStore(home, key);
    store.save('acc-1', { method: 'api_key', apiKey: KEY, accountHeader: 'acc-1' });
    store.save('acc-2', { method: 'bearer', token: 'eyJhbGciOiJIUzI1NiJ9.SECRETTOKEN' });
    const path = join(home, 'credentials.sealed');
    const bytes = readFileSync(path, 'utf8');
    expect(bytes).not.toContain('SECRET');
    expect(bytes).not.toContain('acc-1');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(existsSync(join(home, 'credentials.json'))).toBe(false);
    expect(new SealedCredentialStore(home, key).load()).toEqual({
      'acc-1': { method: 'api_key', apiKey: KEY, accountHeader: 'acc-1' },
      'acc-2': { method: 'bearer', token: 'eyJhbGciOiJIUzI1NiJ9.SECRETTOKEN' },
    });
    store.forget('acc-1');
    expect(Object.keys(store.load())).toEqual(['acc-2']);
    store.forget('acc-2');
    expect(existsSync(path)).toBe(false);
  });

  it('refuses another key and a changed byte, saying what to do, quoting nothing of the file', () => {
    const store = new SealedCredentialStore(home, randomBytes(32));
    store.save('acc-1', { method: 'api_key', apiKey: KEY });
    expect(() => new SealedCredentialStore(home, randomBytes(32)).load()).toThrow(/cannot be opened with this system's keychain key.*connect the accounts again/);
    const path = join(home, 'credentials.sealed');
    const box = JSON.parse(readFileSync(path, 'utf8')) as { data: string };
    const data = Buffer.from(box.data, 'base64');
    data[0]! ^= 1;
    writeFileSync(path, JSON.stringify({ ...box, data: data.toString('base64') }));
    let message = '';
    try { store.load(); } catch (e) { message = (e as Error).message; }
    expect(message).toMatch(/cannot be opened/);
    expect(message).not.toContain(box.data.slice(0, 8));
    expect(() => new SealedCredentialStore(home, randomBytes(16))).toThrow(/32 bytes/);
  });

  it('seals the accounts of the plain file and removes it, the plain entries winning', () => {
    const key = randomBytes(32);
    new SealedCredentialStore(home, key).save('acc-1', { method: 'api_key', apiKey: 'old' });
    saveCredentials(home, 'acc-1', { method: 'api_key', apiKey: KEY });
    saveCredentials(home, 'acc-3', { method: 'bearer', token: 't3' });
    const store = new SealedCredentialStore(home, key);
    expect(existsSync(join(home, 'credentials.json'))).toBe(false);
    expect(loadCredentials(home)).toEqual({});
    expect(store.load()).toEqual({ 'acc-1': { method: 'api_key', apiKey: KEY }, 'acc-3': { method: 'bearer', token: 't3' } });
  });
});
