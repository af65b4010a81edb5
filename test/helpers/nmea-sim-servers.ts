// The simulated receiver (test/helpers/nmea-sim.ts) on the network and on a serial line, as real ones are met: a
// TCP server sending NMEA to whoever connects (a receiver's or a phone app's NMEA share), UDP datagrams sent to a
// port (a receiver broadcasting), gpsd's JSON protocol on TCP, and a pseudo-terminal (a serial port).
import { createServer, type Server, type Socket } from 'node:net';
import { createSocket } from 'node:dgram';
import { openSync, writeSync, closeSync } from 'node:fs';
import { gpsdReports, type NmeaPlayer } from './nmea-sim.ts';

export interface SimServer {
  port: number;
  /** Clients connected now. */
  clients(): number;
  /** Closes every client's connection (a receiver dropping out) and keeps listening. */
  dropClients(): void;
  close(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as { port: number }).port));
  });
}

function tracked(server: Server, port: number, sockets: Set<Socket>, stop: () => void): SimServer {
  return {
    port,
    clients: () => sockets.size,
    dropClients: () => { for (const s of sockets) s.destroy(); },
    close: () => {
      stop();
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

/** NMEA to every client that connects to `port` (0: a free one) on `host`. */
export async function serveNmeaTcp(player: NmeaPlayer, port = 0, host = '127.0.0.1'): Promise<SimServer> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
    s.on('close', () => sockets.delete(s));
  });
  const stop = player.onCycle((c) => { if (c.text) for (const s of sockets) s.write(c.text, 'latin1'); });
  return tracked(server, await listen(server, port, host), sockets, stop);
}

/** Each cycle as one datagram to `port` on `host`. */
export function sendNmeaUdp(player: NmeaPlayer, port: number, host = '127.0.0.1'): { close(): void; sent(): number } {
  const socket = createSocket(host.includes(':') ? 'udp6' : 'udp4');
  let sent = 0;
  const stop = player.onCycle((c) => {
    if (!c.text) return;
    sent++;
    socket.send(Buffer.from(c.text, 'latin1'), port, host, () => {});
  });
  let open = true;
  return { close: () => { if (open) { open = false; stop(); socket.close(); } }, sent: () => sent };
}

/**
 * gpsd's protocol: VERSION on connection; after ?WATCH={"enable":true,"json":true}, DEVICES and WATCH, then each cycle
 * as SKY, GST and TPV.
 */
export async function serveGpsd(player: NmeaPlayer, port = 0, host = '127.0.0.1'): Promise<SimServer> {
  const sockets = new Set<Socket>();
  const watching = new Set<Socket>();
  const device = '/dev/sim0';
  const server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
    s.on('close', () => { sockets.delete(s); watching.delete(s); });
    s.write('{"class":"VERSION","release":"3.25-sim","rev":"3.25-sim","proto_major":3,"proto_minor":15}\r\n');
    let buf = '';
    s.on('data', (d: Buffer) => {
      buf = (buf + d.toString('latin1')).slice(-4096);
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        const m = /^\?WATCH=(\{.*\});?$/.exec(line);
        if (!m) continue;
        const enable = (JSON.parse(m[1]!) as { enable?: boolean }).enable !== false;
        s.write(`${JSON.stringify({ class: 'DEVICES', devices: [{ class: 'DEVICE', path: device, driver: 'NMEA0183', activated: new Date().toISOString(), native: 0, bps: 9600 }] })}\r\n`);
        s.write(`${JSON.stringify({ class: 'WATCH', enable, json: true, nmea: false, raw: 0, scaled: false, timing: false, split24: false, pps: false })}\r\n`);
        if (enable) watching.add(s); else watching.delete(s);
      }
    });
  });
  const stop = player.onCycle((c) => { if (!c.silent) for (const s of watching) s.write(gpsdReports(c, device)); });
  return tracked(server, await listen(server, port, host), sockets, stop);
}

/** A line that is gone: the pseudo-terminal's other end closed (socat stopped), as a receiver's cable pulled. */
const HUNG_UP = new Set(['EIO', 'ENXIO', 'EPIPE']);

/**
 * Writes each cycle to a file (a pseudo-terminal's end, `socat`'s link): a receiver on a serial port. Once the line
 * is hung up (socat stopped first, by a test's clean-up or its unplugging) it stops writing, as a receiver whose cable
 * was pulled: a write there raised EIO from a timer, outside any test.
 */
export function writeNmeaTo(player: NmeaPlayer, path: string): { close(): void } {
  const fd = openSync(path, 'w');
  let open = true;
  const close = () => { if (open) { open = false; stop(); closeSync(fd); } };
  const stop = player.onCycle((c) => {
    if (!c.text || !open) return;
    try {
      writeSync(fd, Buffer.from(c.text, 'latin1'));
    } catch (err) {
      if (!HUNG_UP.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
      close();
    }
  });
  return { close };
}
