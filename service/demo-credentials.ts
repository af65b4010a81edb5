// The demo's API key and admin password, kept in plain text next to the database so that `npm start` shows the
// same ones every time (the database holds only their hashes). Readable by the owner only, like an SSH key.
import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const DEMO_CREDENTIALS_FILE = 'demo-credentials.json';

export interface DemoSecrets {
  organization_id: string;
  api_key: string;
  admin_email: string;
  admin_password: string;
}

export type SavedSecrets =
  | { state: 'ok'; secrets: DemoSecrets }
  | { state: 'missing' }
  /** Someone else could read it (group or other permission bits): its secrets must be treated as seen. */
  | { state: 'exposed'; secrets: DemoSecrets | null; mode: string }
  | { state: 'unreadable'; reason: string };

export const demoCredentialsPath = (dataDir: string): string => join(dataDir, DEMO_CREDENTIALS_FILE);

// POSIX permission bits mean nothing on Windows (Node reports 0o666 for every file there).
const checksMode = process.platform !== 'win32';

function parse(text: string): DemoSecrets | null {
  try {
    const v = JSON.parse(text) as Partial<Record<keyof DemoSecrets, unknown>>;
    const fields = ['organization_id', 'api_key', 'admin_email', 'admin_password'] as const;
    return fields.every((k) => typeof v[k] === 'string' && v[k] !== '') ? (v as DemoSecrets) : null;
  } catch {
    return null;
  }
}

export function readDemoSecrets(dataDir: string): SavedSecrets {
  const path = demoCredentialsPath(dataDir);
  let mode: number;
  let text: string;
  try {
    mode = statSync(path).mode;
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
    return { state: 'unreadable', reason: (err as Error).message };
  }
  const secrets = parse(text);
  if (checksMode && (mode & 0o077) !== 0) return { state: 'exposed', secrets, mode: (mode & 0o777).toString(8).padStart(4, '0') };
  return secrets ? { state: 'ok', secrets } : { state: 'unreadable', reason: 'not the JSON object the demo writes' };
}

/** Written to a temporary file created 0600 and renamed over the old one: never readable by others, never half written. */
export function writeDemoSecrets(dataDir: string, secrets: DemoSecrets): void {
  mkdirSync(dataDir, { recursive: true });
  const path = demoCredentialsPath(dataDir);
  const tmp = `${path}.${process.pid}.tmp`;
  const note = 'Written by `npm start` (service/demo.ts): the demo organization\'s API key and admin password. Delete this file to have new ones issued.';
  writeFileSync(tmp, `${JSON.stringify({ note, ...secrets }, null, 2)}\n`, { mode: 0o600, flag: 'w' });
  // The mode given to open() is reduced by the umask but never widened; a leftover temp file keeps its old mode, so set it.
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}
