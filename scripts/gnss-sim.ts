// `npm run -s gnss-sim -- --tcp 10110`: a GNSS receiver for whoever has none — the walk round a field beside the
// demo's Hof Sonnenfeld as NMEA, for the app to connect to (Position → TCP, 127.0.0.1:10110). Also `--udp <port>`
// (datagrams sent to that port on 127.0.0.1, or --udp-host), `--gpsd <port>` (gpsd's JSON protocol),
// `--serial <path>` (a pseudo-terminal's end: socat's link), `--hz 1..10`, `--faults` (fix changes, a dropout, bad
// checksums, cut sentences). It walks round and round until stopped (Ctrl+C).
import { parseArgs } from 'node:util';
import { FAULTS, NmeaPlayer } from '../test/helpers/nmea-sim.ts';
import { sendNmeaUdp, serveGpsd, serveNmeaTcp, writeNmeaTo } from '../test/helpers/nmea-sim-servers.ts';

const { values: a } = parseArgs({
  options: {
    tcp: { type: 'string' }, udp: { type: 'string' }, 'udp-host': { type: 'string', default: '127.0.0.1' }, gpsd: { type: 'string' },
    serial: { type: 'string' }, host: { type: 'string', default: '127.0.0.1' }, hz: { type: 'string', default: '5' }, faults: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
const port = (v: string | undefined, name: string): number | undefined => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`--${name} wants a port number (got '${v}')`);
  return n;
};
const hz = Number(a.hz);
if (a.help || !Number.isFinite(hz) || hz < 1 || hz > 10 || (a.tcp ?? a.udp ?? a.gpsd ?? a.serial) === undefined) {
  process.stderr.write('Usage: npm run -s gnss-sim -- [--tcp <port>] [--udp <port> [--udp-host <host>]] [--gpsd <port>] [--serial <pty path>] [--host 127.0.0.1] [--hz 1..10] [--faults]\n');
  process.exit(a.help ? 0 : 2);
}
const player = new NmeaPlayer({ hz, loop: true, ...(a.faults ? FAULTS : {}) });
const closers: (() => unknown)[] = [];
const tcp = port(a.tcp, 'tcp');
if (tcp !== undefined) {
  const s = await serveNmeaTcp(player, tcp, a.host);
  closers.push(() => s.close());
  process.stdout.write(`NMEA over TCP on ${a.host}:${s.port}: in Furrow, Position → TCP, host ${a.host}, port ${s.port}\n`);
}
const udp = port(a.udp, 'udp');
if (udp !== undefined) {
  const u = sendNmeaUdp(player, udp, a['udp-host']);
  closers.push(() => u.close());
  process.stdout.write(`NMEA datagrams to ${a['udp-host']}:${udp}: in Furrow, Position → UDP, port ${udp}\n`);
}
const gpsd = port(a.gpsd, 'gpsd');
if (gpsd !== undefined) {
  const g = await serveGpsd(player, gpsd, a.host);
  closers.push(() => g.close());
  process.stdout.write(`gpsd's protocol on ${a.host}:${g.port}: in Furrow, Position → gpsd, host ${a.host}, port ${g.port}\n`);
}
if (a.serial) {
  const w = writeNmeaTo(player, a.serial);
  closers.push(() => w.close());
  process.stdout.write(`NMEA written to ${a.serial}\n`);
}
player.start();
process.stdout.write(`Walking round a hectare beside Hof Sonnenfeld at ${hz} Hz${a.faults ? ', with faults' : ''}; Ctrl+C stops.\n`);
const stop = () => { player.stop(); for (const c of closers) void c(); setTimeout(() => process.exit(0), 100).unref(); };
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
