import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

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
}

export function furrowHome(env: NodeJS.ProcessEnv = process.env): string {
  if (env.FURROW_HOME) return env.FURROW_HOME;
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Furrow');
  if (process.platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Furrow');
  return join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'furrow');
}

const file = (home: string) => join(home, 'credentials.json');

export function loadCredentials(home: string): Record<string, AccountCredentials> {
  if (!existsSync(file(home))) return {};
  return JSON.parse(readFileSync(file(home), 'utf8')) as Record<string, AccountCredentials>;
}

export function saveCredentials(home: string, accountId: string, c: AccountCredentials): void {
  mkdirSync(home, { recursive: true, mode: 0o700 });
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
