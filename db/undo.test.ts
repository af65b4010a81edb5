// The undo engine on its own, on a real mirror file, with an update of its own: what it records, and that undo and
// redo write a row's fields through the update it was given (the writer's, which queues them for the service).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb, type Db } from './open.ts';
import { getRow, insertRow, updateRow } from './rows.ts';
import { UndoHistory } from './undo.ts';
import type { Entity, FarmRow } from './types.ts';

const ACC = 'acc-1';
let dir: string;
let db: Db;
let updates: [Entity, string, Record<string, unknown>][];
let history: UndoHistory;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'furrow-undo-'));
  db = openDb(join(dir, 'mirror.db'));
  db.prepare("INSERT INTO accounts (id, service_url, mode, label, created) VALUES (?, 'http://127.0.0.1:1', 'api_key', '', '')").run(ACC);
  updates = [];
  history = new UndoHistory(db, (entity, row, fields) => {
    updates.push([entity, row.local_id, fields as Record<string, unknown>]);
    updateRow(db, entity, row.local_id, fields);
  });
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const farm = (name: string): FarmRow => ({ local_id: 'f1', account_id: ACC, server_id: null, name, base: null, deleted: 0, created: '', modified: '' });
const entries = () => db.prepare('SELECT label, account_id, undone FROM history ORDER BY id').all();

describe('UndoHistory', () => {
  it('records an edit as one entry of its account, with each row as it was before the edit first touched it', () => {
    history.edit('Create', () => {
      history.touch('farm', 'f1', true);
      insertRow(db, 'farm', farm('A'));
    });
    history.edit('Rename twice', () => {
      history.touch('farm', 'f1');
      updateRow(db, 'farm', 'f1', { name: 'B' });
      history.touch('farm', 'f1');
      updateRow(db, 'farm', 'f1', { name: 'C' });
    });
    // Nothing touched, nothing recorded; touching outside an edit records nothing either.
    history.edit('Nothing', () => {});
    history.touch('farm', 'f1');
    expect(entries()).toEqual([{ label: 'Create', account_id: ACC, undone: 0 }, { label: 'Rename twice', account_id: ACC, undone: 0 }]);
    expect(history.undo(ACC)).toBe('Rename twice');
    expect(getRow(db, 'farm', 'f1')!.name).toBe('A');
    expect(updates).toEqual([['farm', 'f1', { name: 'A' }]]);
    expect(history.redo(ACC)).toBe('Rename twice');
    expect(getRow(db, 'farm', 'f1')!.name).toBe('C');
    expect(history.redo(ACC)).toBeNull();
  });

  it('records nothing of an edit that fails, and keeps no open edit after it', () => {
    expect(() => history.edit('Broken', () => {
      history.touch('farm', 'f1', true);
      insertRow(db, 'farm', farm('A'));
      throw new Error('no');
    })).toThrow('no');
    expect(entries()).toEqual([]);
    expect(getRow(db, 'farm', 'f1')).toBeUndefined();
    history.touch('farm', 'f1');
    expect(entries()).toEqual([]);
  });
});
