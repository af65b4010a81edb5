// The connect form's fields as a source of position (core/api-position.ts's PositionSource), or the sentence saying
// what is wrong with them: checked here as the host will check them, so the user hears it beside the field.
import { BAUD_RATES, type PositionSource } from '../../../core/api-position.ts';
import type { PositionPrefs } from './position-store.ts';

export type SourceForm = PositionPrefs['form'] & { serial: string };

const HOST = /^[A-Za-z0-9.:[\]-]{1,253}$/;

function port(text: string, what: string): number | string {
  const n = Number(text.trim());
  return Number.isInteger(n) && n >= 1 && n <= 65535 ? n : `${what} must be a whole number from 1 to 65535.`;
}

export function sourceFromForm(f: SourceForm): PositionSource | { error: string } {
  switch (f.kind) {
    case 'serial': {
      if (!f.serial) return { error: 'Choose a serial port (plug the receiver in, then Look for ports again).' };
      const baud = Number(f.baud) as (typeof BAUD_RATES)[number];
      if (!BAUD_RATES.includes(baud)) return { error: 'Choose a baud rate.' };
      return { kind: 'serial', port: f.serial, baud };
    }
    case 'tcp': case 'gpsd': {
      const host = (f.kind === 'tcp' ? f.host : f.gpsdHost).trim();
      if (!HOST.test(host)) return { error: 'Type the host name or IP address of the receiver (letters, digits, dots, colons).' };
      const p = port(f.kind === 'tcp' ? f.port : f.gpsdPort, 'The port');
      if (typeof p === 'string') return { error: p };
      return { kind: f.kind, host, port: p };
    }
    case 'udp': {
      const p = port(f.udpPort, 'The port to listen on');
      return typeof p === 'string' ? { error: p } : { kind: 'udp', port: p };
    }
    case 'system': return { kind: 'system' };
    default: return { error: 'Choose where positions come from.' };
  }
}
