import { describe, expect, it } from 'vitest';
import { fieldLabel, kindNote, resolvedFieldsMessage, resolvedMessage, sideText } from './conflict-words.ts';

describe("the conflict panel's words", () => {
  it('names fields as the user knows them', () => {
    expect(fieldLabel('name')).toBe('Name');
    expect(fieldLabel('geometry')).toBe('Shape');
    expect(fieldLabel('metadata.soil type')).toBe('soil type');
    expect(fieldLabel('metadata.a.b')).toBe('a.b');
    expect(sideText(null)).toBe('(not set)');
    expect(sideText('')).toBe('');
  });
  it('says what each choice does next', () => {
    const edit = { kind: 'edit', deletedOnService: false };
    expect(resolvedMessage(edit, 'mine', 'Olivar B')).toBe('Kept mine: Olivar B is sent to the service at the next sync.');
    expect(resolvedMessage(edit, 'theirs', 'Olivar B')).toBe("Kept the service's version of Olivar B.");
    expect(resolvedMessage({ kind: 'remote_delete', deletedOnService: true }, 'theirs', 'X')).toBe("Kept the service's version: X is deleted here too.");
    expect(kindNote('edit')).toBeNull();
    expect(kindNote('remote_delete')).toMatch(/Keep mine creates it there again/);
  });
});

describe('the message after a choice field by field', () => {
  it('counts the fields kept from each side and says what happens next', () => {
    expect(resolvedFieldsMessage({ name: 'theirs', 'metadata.region': 'mine', geometry: 'mine' }, 'Olivar B'))
      .toBe("Kept 2 fields of mine and 1 field of the service's: Olivar B is sent to the service at the next sync.");
    expect(resolvedFieldsMessage({ name: 'theirs', geometry: 'theirs' }, 'Olivar B')).toBe("Kept the service's version of Olivar B.");
  });
});
