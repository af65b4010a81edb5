// A mirror in a folder of its own for a test file's cases: opened with its accounts before each, closed and removed
// after (the set-up every mirror-level test file repeated).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Mirror } from '../../db/mirror.ts';

export interface TestMirror { m: Mirror; dir: string }

/** A fresh mirror under a temporary folder named `prefix…`, with these accounts (each on 127.0.0.1:1 unless said). */
export function openTestMirror(prefix: string, accounts: ReadonlyArray<string | { id: string; service_url: string }>): TestMirror {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const m = Mirror.open(join(dir, 'mirror.db'));
  for (const a of accounts) m.write.addAccount(typeof a === 'string' ? { id: a, service_url: 'http://127.0.0.1:1', mode: 'api_key' } : { ...a, mode: 'api_key' });
  return { m, dir };
}

export function closeTestMirror(t: TestMirror): void {
  t.m.close();
  rmSync(t.dir, { recursive: true, force: true });
}
