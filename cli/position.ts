// `position`: GNSS receivers from the command line (issue 31). `position ports` lists this computer's serial ports
// as the app's page sees them (an id and a label, never a path). `position watch --tcp HOST:PORT | --udp PORT |
// --gpsd HOST[:PORT] | --serial PATH [--baud N]` prints each fix as a JSON line until Ctrl+C (or --count N fixes):
// for trying a receiver, or the simulator (npm run -s gnss-sim), without the app. Watching connects on its own,
// through the host's same connection code (backend/position/), and never replaces the source the app remembers.
import type { ClientOf } from '../core/rpc.ts';
import type { Api } from '../core/api.ts';
import { BAUD_RATES, GPSD_PORT, type PositionStatus } from '../core/api-position.ts';
import { GPSD_WATCH } from '../core/gnss/gpsd.ts';
import { Connection } from '../backend/position/connection.ts';
import { gpsdDecoder, nmeaDecoder } from '../backend/position/decoders.ts';
import { tcpLink, udpLink, type OpenLink } from '../backend/position/links.ts';
import { serialLink } from '../backend/position/serial-ports.ts';
import { UsageError, parseWhole } from './args.ts';
import type { OutStream } from './output.ts';

type Values = Record<string, string | boolean | undefined>;
const str = (v: Values, k: string): string | undefined => (typeof v[k] === 'string' ? (v[k] as string) : undefined);

/** HOST:PORT (a bracketed IPv6 address allowed); the port may be left out when `defaultPort` is given. */
function hostPort(text: string, option: string, defaultPort?: number): { host: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(text);
  if (!m || (m[2] === undefined && defaultPort === undefined)) throw new UsageError(`${option} wants HOST:PORT (got '${text}')`);
  const port = m[2] === undefined ? defaultPort! : parseWhole(m[2], `${option}'s port`, 1, 65535);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

function linkOf(v: Values): { link: OpenLink; gpsd: boolean; what: string } {
  const chosen = ['tcp', 'udp', 'gpsd', 'serial'].filter((k) => str(v, k) !== undefined);
  if (chosen.length !== 1) throw new UsageError('position watch needs one of --tcp HOST:PORT, --udp PORT, --gpsd HOST[:PORT], --serial PATH');
  const tcp = str(v, 'tcp'), udp = str(v, 'udp'), gpsd = str(v, 'gpsd'), serial = str(v, 'serial');
  if (tcp) { const a = hostPort(tcp, '--tcp'); return { link: tcpLink(a.host, a.port), gpsd: false, what: `TCP ${a.host}:${a.port}` }; }
  if (udp) { const p = parseWhole(udp, '--udp', 1, 65535); return { link: udpLink(p), gpsd: false, what: `UDP port ${p}` }; }
  if (gpsd) { const a = hostPort(gpsd, '--gpsd', GPSD_PORT); return { link: tcpLink(a.host, a.port, GPSD_WATCH), gpsd: true, what: `gpsd at ${a.host}:${a.port}` }; }
  const baud = parseWhole(str(v, 'baud') ?? '9600', '--baud', 1, 10_000_000);
  if (!(BAUD_RATES as readonly number[]).includes(baud)) throw new UsageError(`--baud is one of ${BAUD_RATES.join(', ')}`);
  return { link: serialLink(serial!, baud), gpsd: false, what: `${serial} at ${baud} baud` };
}

/** Runs `position ports | watch …`; its exit code. */
export async function positionCommand(api: ClientOf<Api>, sub: string | undefined, v: Values, io: { out: (x: unknown) => void; stderr: OutStream; signal?: AbortSignal }): Promise<number> {
  if (sub === 'ports') {
    io.out(await api.positionPorts({}));
    return 0;
  }
  if (sub !== 'watch') throw new UsageError(`position takes 'ports' or 'watch' (got '${sub ?? ''}')`);
  const { link, gpsd, what } = linkOf(v);
  const count = str(v, 'count') === undefined ? Infinity : parseWhole(str(v, 'count')!, '--count', 1, Number.MAX_SAFE_INTEGER);
  let seen = 0;
  let finish!: (code: number) => void;
  const done = new Promise<number>((r) => { finish = r; });
  const c = new Connection(link, () => (gpsd ? gpsdDecoder() : nmeaDecoder()), {
    status: (status: PositionStatus, message) => io.stderr.write(`${what}: ${status}${message ? ` — ${message}` : ''}\n`),
    epoch: (e) => {
      if (!e.fix) { io.stderr.write('no fix\n'); return; }
      io.out({ ...e.fix, inView: e.inView });
      if (++seen >= count) finish(0);
    },
  });
  const stop = () => finish(0);
  io.signal?.addEventListener('abort', stop, { once: true });
  c.start();
  try {
    return await done;
  } finally {
    io.signal?.removeEventListener('abort', stop);
    c.close();
  }
}
