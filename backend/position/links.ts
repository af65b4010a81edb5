// The byte streams a receiver is reached over (issue 31), each opened the same way — TCP (the host connects to a
// receiver's or a phone app's NMEA share, or to gpsd), UDP (the host listens for a receiver's datagrams) — and told
// apart by nothing above them: backend/position/connection.ts reopens whichever drops. Serial ports are in
// backend/position/serial-ports.ts.
import { connect } from 'node:net';
import { createSocket } from 'node:dgram';

/** What a link tells its owner. `closed` comes once; `fatal`: trying again will not help (the user must act). */
export interface LinkEvents {
  opened(): void;
  /** Bytes as text, one character a byte (latin1): NMEA and gpsd's JSON are ASCII. */
  data(text: string): void;
  closed(reason: string, fatal?: boolean): void;
}

export interface Link {
  close(): void;
}

export type OpenLink = (ev: LinkEvents) => Link;

/** Words for a socket's error: what a user can act on, not errno's name. */
export function socketReason(err: NodeJS.ErrnoException, where: string): string {
  switch (err.code) {
    case 'ECONNREFUSED': return `Nothing answers at ${where}: is the receiver (or the app sharing its position) on, and its port right?`;
    case 'ETIMEDOUT': case 'EHOSTUNREACH': case 'ENETUNREACH': return `${where} cannot be reached: is this computer on the receiver's network?`;
    case 'ENOTFOUND': case 'EAI_AGAIN': return `No computer is named ${where.replace(/:\d+$/, '')} on this network`;
    case 'ECONNRESET': case 'EPIPE': return `The receiver at ${where} closed the connection`;
    case 'EADDRINUSE': return `Another program already listens on UDP port ${where}: close it or choose another port`;
    case 'EACCES': case 'EPERM': return `This computer does not let Furrow listen on port ${where}: choose a port above 1023`;
    default: return `The connection to ${where} failed (${err.code ?? err.message})`;
  }
}

/** TCP to `host`:`port`; `greeting` is sent once connected (gpsd's ?WATCH). */
export function tcpLink(host: string, port: number, greeting?: string): OpenLink {
  return (ev) => {
    const where = `${host}:${port}`;
    let done = false;
    const end = (reason: string) => { if (!done) { done = true; ev.closed(reason); } };
    const socket = connect({ host, port, timeout: 10_000 });
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 5_000);
    socket.once('connect', () => {
      socket.setTimeout(0);
      if (greeting) socket.write(greeting);
      ev.opened();
    });
    socket.on('timeout', () => { socket.destroy(); end(`${where} did not answer within 10 s`); });
    socket.on('data', (d: Buffer) => ev.data(d.toString('latin1')));
    socket.on('error', (err: NodeJS.ErrnoException) => end(socketReason(err, where)));
    socket.on('close', () => end(`The receiver at ${where} closed the connection`));
    return { close: () => { done = true; socket.destroy(); } };
  };
}

/**
 * Listens for datagrams on UDP `port`, on every interface (0.0.0.0) unless told: a receiver that sends UDP is on the
 * network (a phone app, a receiver on Wi-Fi), and one bound to 127.0.0.1 would hear only this computer. What any
 * machine on the network sends to the port is read as NMEA — bounded and parsed as any receiver's bytes, it can
 * only ever be taken for a position, which is what choosing UDP asks for. Each datagram ends its last line.
 */
export function udpLink(port: number, bindAddress = '0.0.0.0'): OpenLink {
  return (ev) => {
    let done = false;
    const socket = createSocket({ type: bindAddress.includes(':') ? 'udp6' : 'udp4', reuseAddr: false });
    socket.on('message', (m) => ev.data(m.length && m[m.length - 1] === 10 ? m.toString('latin1') : `${m.toString('latin1')}\n`));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (done) return;
      done = true;
      socket.close();
      ev.closed(socketReason(err, String(port)), err.code === 'EADDRINUSE' || err.code === 'EACCES' || err.code === 'EPERM');
    });
    socket.bind(port, bindAddress, () => ev.opened());
    return { close: () => { if (!done) { done = true; socket.close(); } } };
  };
}
