import { describe, expect, it } from 'vitest';
import { DEFAULT_PREFS } from './position-store.ts';
import { sourceFromForm, type SourceForm } from './source-form.ts';

const form = (over: Partial<SourceForm>): SourceForm => ({ ...DEFAULT_PREFS.form, serial: '', ...over });

describe('sourceFromForm', () => {
  it('makes each kind of source', () => {
    expect(sourceFromForm(form({ kind: 'tcp', host: ' 127.0.0.1 ', port: '10110' }))).toEqual({ kind: 'tcp', host: '127.0.0.1', port: 10110 });
    expect(sourceFromForm(form({ kind: 'udp', udpPort: '5000' }))).toEqual({ kind: 'udp', port: 5000 });
    expect(sourceFromForm(form({ kind: 'gpsd' }))).toEqual({ kind: 'gpsd', host: '127.0.0.1', port: 2947 });
    expect(sourceFromForm(form({ kind: 'serial', serial: 'ab12cd34ef56ab78', baud: '38400' }))).toEqual({ kind: 'serial', port: 'ab12cd34ef56ab78', baud: 38400 });
    expect(sourceFromForm(form({ kind: 'system' }))).toEqual({ kind: 'system' });
  });

  it('says what is wrong', () => {
    expect(sourceFromForm(form({ kind: 'tcp', port: '70000' }))).toEqual({ error: 'The port must be a whole number from 1 to 65535.' });
    expect(sourceFromForm(form({ kind: 'tcp', host: 'a b' }))).toHaveProperty('error');
    expect(sourceFromForm(form({ kind: 'serial' }))).toEqual({ error: 'Choose a serial port (plug the receiver in, then Look for ports again).' });
    expect(sourceFromForm(form({ kind: 'serial', serial: 'ab12cd34ef56ab78', baud: '1234' }))).toEqual({ error: 'Choose a baud rate.' });
    expect(sourceFromForm(form({ kind: 'udp', udpPort: 'x' }))).toHaveProperty('error');
  });
});
