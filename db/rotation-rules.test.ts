// A farm's rotation rule set kept in the mirror's settings table: one row per farm, outliving the mirror's
// connection, forgotten when reset or when its account is removed (another account's kept).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Mirror } from './mirror.ts';
import { removeAccount } from './accounts.ts';
import { ACCOUNT, tempMirror, type TempMirror } from './import/fixtures/temp-mirror.ts';

const OTHER = 'acc-00000000-0000-4000-8000-000000000002';
let t: TempMirror;
beforeEach(() => {
  t = tempMirror();
  t.mirror.write.addAccount({ id: OTHER, service_url: 'http://127.0.0.1:1', mode: 'api_key' });
});
afterEach(() => t.close());

describe('rotation rule sets in the mirror', () => {
  it('keeps one per farm, across a reopen, and forgets one when reset', () => {
    const a = t.mirror.write.createFarm(ACCOUNT, 'A');
    const b = t.mirror.write.createFarm(ACCOUNT, 'B');
    expect(t.mirror.write.rotationRules(a.local_id)).toBeNull();
    t.mirror.write.setRotationRules(a.local_id, '{"maxSameCrop":1}');
    t.mirror.write.setRotationRules(b.local_id, '{"maxSameCrop":2}');
    t.mirror.write.setRotationRules(a.local_id, '{"maxSameCrop":3}');
    t.mirror.close();
    t.mirror = Mirror.open(join(t.dir, 'mirror.db'));
    expect(t.mirror.write.rotationRules(a.local_id)).toBe('{"maxSameCrop":3}');
    expect(t.mirror.write.rotationRules(b.local_id)).toBe('{"maxSameCrop":2}');
    t.mirror.write.setRotationRules(a.local_id, null);
    expect(t.mirror.write.rotationRules(a.local_id)).toBeNull();
    expect(t.mirror.write.rotationRules(b.local_id)).toBe('{"maxSameCrop":2}');
  });

  it("goes with its account's removal, another account's staying", () => {
    const mine = t.mirror.write.createFarm(ACCOUNT, 'Mine');
    const theirs = t.mirror.write.createFarm(OTHER, 'Theirs');
    t.mirror.write.setRotationRules(mine.local_id, '{}');
    t.mirror.write.setRotationRules(theirs.local_id, '{"x":1}');
    removeAccount(t.mirror.syncDb, ACCOUNT, { discardUnsynced: true });
    expect(t.mirror.write.rotationRules(mine.local_id)).toBeNull();
    expect(t.mirror.write.rotationRules(theirs.local_id)).toBe('{"x":1}');
  });
});
