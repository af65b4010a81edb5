import { chmodSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir } from '../platform/node/private-files.ts';

/**
 * Secrets stay out of the mirror: they live in FURROW_HOME/credentials.json, readable by the user only,
 * and are never printed or logged (status and errors show prefixes at most).
 */
export interface AccountCredentials {
  /** 'api_key': x-api-key + account header; 'bearer': a token, refreshed through the service (org) or a command. */
  method: 'api_key' | 'bearer';
  apiKey?: string;
  accountHeader?: string;
  token?: string;
  tokenCommand?: string;
  /** Account mode: the token provider's address (core/accounts/token-provider.ts), asked for a token when needed. */
  tokenUrl?: string;
  /** An organization's key kept alone (addOrganization, sync/organization.ts): the service it is for. */
  service?: string;
  /** The API key is read from FURROW_API_KEY (not set when this is true and apiKey is missing). */
  keyFromEnv?: boolean;
  /** With an API key: the organization the service said it speaks for (not a secret; kept to tell when it changes). */
  organization?: { id: string; name: string };
}

const file = (home: string) => join(home, 'credentials.json');

export function loadCredentials(home: string): Record<string, AccountCredentials> {
  if (!existsSync(file(home))) return {};
  return JSON.parse(readFileSync(file(home), 'utf8')) as Record<string, AccountCredentials>;
}

export function saveCredentials(home: string, accountId: string, c: AccountCredentials): void {
  ensurePrivateDir(home);
  const all = { ...loadCredentials(home), [accountId]: c };
  const tmp = `${file(home)}.tmp`;
  writeFileSync(tmp, JSON.stringify(all, null, 2), { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file(home));
}

/** Forgets an account's credentials (a file that then holds none is removed). */
export function forgetCredentials(home: string, accountId: string): void {
  const all = loadCredentials(home);
  if (!(accountId in all)) return;
  delete all[accountId];
  if (Object.keys(all).length === 0) {
    rmSync(file(home), { force: true });
    return;
  }
  const tmp = `${file(home)}.tmp`;
  writeFileSync(tmp, JSON.stringify(all, null, 2), { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file(home));
}

export const maskKey = (key: string | undefined) => (key ? `${key.slice(0, 11)}…` : '');

/**
 * Where the accounts' secrets are kept. Outside Electron: a file in FURROW_HOME readable by the user only, or —
 * for the organization's API key — an environment variable, so that no copy of the key is written at all. The
 * packaged desktop app keeps them sealed under a key its keychain guards (Electron safeStorage: electron/main.ts,
 * sync/sealed-credentials.ts). The backend alone reads them: no API answer, event or log line carries them.
 */
export interface CredentialStore {
  /** For people: where the secrets are, e.g. "a file only you can read (~/.local/share/furrow/credentials.json)". */
  readonly where: string;
  load(): Record<string, AccountCredentials>;
  save(accountId: string, c: AccountCredentials): void;
  forget(accountId: string): void;
}

export class FileCredentialStore implements CredentialStore {
  readonly where: string;
  constructor(private readonly home: string) {
    this.where = `a file only you can read (${file(home)})`;
  }
  load(): Record<string, AccountCredentials> {
    const all = loadCredentials(this.home);
    // Connected with FURROW_API_KEY, which is not set now: no key (the account is blocked, saying so), never the marker.
    for (const c of Object.values(all)) if (c.apiKey === FROM_ENV) { delete c.apiKey; c.keyFromEnv = true; }
    return all;
  }
  save(accountId: string, c: AccountCredentials) { saveCredentials(this.home, accountId, c); }
  forget(accountId: string) { forgetCredentials(this.home, accountId); }
}

/** The file's stand-in for a key that lives in the environment: it names the variable, never holds the key. */
const FROM_ENV = 'env:FURROW_API_KEY';

/**
 * FURROW_API_KEY holds the organization's API key: an account connected with that key is recorded in the file
 * as using the variable, and the key is read from the environment each time. Other secrets (tokens, another
 * key) go to the file as before.
 */
export class EnvKeyCredentialStore implements CredentialStore {
  readonly where: string;
  private readonly file: FileCredentialStore;
  constructor(home: string, private readonly key: string) {
    this.file = new FileCredentialStore(home);
    this.where = `the FURROW_API_KEY environment variable (tokens in ${file(home)})`;
  }
  load(): Record<string, AccountCredentials> {
    const all = this.file.load();
    for (const c of Object.values(all)) if (c.keyFromEnv) { delete c.keyFromEnv; c.apiKey = this.key; }
    return all;
  }
  save(accountId: string, c: AccountCredentials) { this.file.save(accountId, c.apiKey === this.key ? { ...c, apiKey: FROM_ENV } : c); }
  forget(accountId: string) { this.file.forget(accountId); }
}

/** The store outside Electron: the environment's key when FURROW_API_KEY is set, the file otherwise. */
export function credentialStore(home: string, env: NodeJS.ProcessEnv = process.env): CredentialStore {
  const key = env.FURROW_API_KEY?.trim();
  return key ? new EnvKeyCredentialStore(home, key) : new FileCredentialStore(home);
}
