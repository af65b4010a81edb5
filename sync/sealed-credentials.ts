// The desktop app's credential store: the same records as the 0600 file (sync/credentials.ts), sealed with AES-256-GCM
// under a key that the operating system's keychain guards. Electron's safeStorage exists only in the app's main
// process, and the host runs in a process of its own, so main keeps a random data key encrypted by safeStorage
// (electron/main.ts) and gives it, decrypted, to the host it starts, in memory (FURROW_CREDENTIAL_KEY, removed from
// the host's environment at once): envelope encryption, as Chromium's own cookie store does. Another user, a backup
// or a stolen disk sees only ciphertext; the key needs this user's login keychain.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir } from '../platform/node/private-files.ts';
import { loadCredentials, type AccountCredentials, type CredentialStore } from './credentials.ts';

const AAD = Buffer.from('furrow-credentials-v1');
const sealedFile = (home: string) => join(home, 'credentials.sealed');

/** Credentials sealed under `key` (32 bytes) in FURROW_HOME/credentials.sealed. */
export class SealedCredentialStore implements CredentialStore {
  readonly where: string;
  constructor(private readonly home: string, private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the credential key must be 32 bytes');
    this.where = `a file encrypted with a key your system's keychain guards (${sealedFile(home)})`;
    this.adoptPlainFile();
  }

  load(): Record<string, AccountCredentials> {
    const path = sealedFile(this.home);
    if (!existsSync(path)) return {};
    try {
      const box = JSON.parse(readFileSync(path, 'utf8')) as { v: number; iv: string; tag: string; data: string };
      if (box.v !== 1) throw new Error(`version ${box.v}`);
      const d = createDecipheriv('aes-256-gcm', this.key, Buffer.from(box.iv, 'base64'));
      d.setAAD(AAD);
      d.setAuthTag(Buffer.from(box.tag, 'base64'));
      const text = Buffer.concat([d.update(Buffer.from(box.data, 'base64')), d.final()]).toString('utf8');
      return JSON.parse(text) as Record<string, AccountCredentials>;
    } catch {
      // Never the cause's text: it could quote the file.
      throw new Error(`The saved credentials (${path}) cannot be opened with this system's keychain key (another user's or another computer's file, or damaged). Remove the file and connect the accounts again.`);
    }
  }

  save(accountId: string, c: AccountCredentials): void {
    this.write({ ...this.load(), [accountId]: c });
  }

  forget(accountId: string): void {
    const all = this.load();
    if (!(accountId in all)) return;
    delete all[accountId];
    if (Object.keys(all).length) this.write(all);
    else rmSync(sealedFile(this.home), { force: true });
  }

  private write(all: Record<string, AccountCredentials>): void {
    ensurePrivateDir(this.home);
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    c.setAAD(AAD);
    const data = Buffer.concat([c.update(JSON.stringify(all), 'utf8'), c.final()]);
    const box = { v: 1, iv: iv.toString('base64'), tag: c.getAuthTag().toString('base64'), data: data.toString('base64') };
    const tmp = `${sealedFile(this.home)}.tmp`;
    writeFileSync(tmp, JSON.stringify(box), { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, sealedFile(this.home));
  }

  /**
   * Accounts connected before with the plain file (the CLI, or the app before its keychain was there) are sealed
   * and the plain file removed, so no secret stays in clear beside the sealed copy. The plain file's entries win:
   * they are the latest connect. (The CLI on this FURROW_HOME then needs `connect` again: it has no keychain.)
   */
  private adoptPlainFile(): void {
    const plain = loadCredentials(this.home);
    if (!Object.keys(plain).length) return;
    this.write({ ...this.load(), ...plain });
    rmSync(join(this.home, 'credentials.json'), { force: true });
  }
}
