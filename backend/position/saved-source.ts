// The source of position chosen on this computer (issue 31), kept in FURROW_HOME (position.json) — not in the
// mirror, which holds the accounts' data: a receiver belongs to the computer it is plugged into — and connected again
// when the host starts. A serial port's path is kept beside its id: the host must find the port again though the
// page only ever had the id.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { PositionSource } from '../../core/api-position.ts';

const Saved = Type.Object({ source: PositionSource, path: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })) });
export interface SavedSource { source: PositionSource; path?: string }

export class SavedSourceFile {
  private readonly file: string;

  constructor(home: string) {
    this.file = join(home, 'position.json');
  }

  /** The source kept, or null (none, or a file this version cannot use: ignored, as the view's settings are). */
  read(): SavedSource | null {
    if (!existsSync(this.file)) return null;
    try {
      const v: unknown = JSON.parse(readFileSync(this.file, 'utf8'));
      return Value.Check(Saved, v) ? v : null;
    } catch {
      return null;
    }
  }

  write(saved: SavedSource): void {
    writeFileSync(`${this.file}.tmp`, JSON.stringify(saved));
    renameSync(`${this.file}.tmp`, this.file);
  }

  forget(): void {
    rmSync(this.file, { force: true });
  }
}
