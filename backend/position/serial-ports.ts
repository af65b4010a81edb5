// Serial and USB ports (issue 31): listed by the `serialport` package, each named to the page by an id the host
// makes — a keyed hash of its path, the key kept in FURROW_HOME, so a port keeps its id on this computer across
// restarts (the remembered choice still names it) and the id tells another computer nothing — and a label (its name
// and maker: "ttyACM0 — u-blox AG", "COM3 — Prolific"). The page chooses an id; only the host maps it back to a path.
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, renameSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { SerialPortInfo } from '../../core/api-position.ts';
import type { LinkEvents, OpenLink } from './links.ts';
import type { SerialPort } from 'serialport';

/**
 * The serialport package, loaded when a serial port is first wanted: its native bindings are not loaded at every
 * start of the host, and a computer where they cannot load still has every other source of position.
 */
const serialport = () => import('serialport');

/** The name a port goes by in labels and messages: its device's name, never its whole path. */
export const portName = (path: string): string => (/^COM\d+$/i.test(path) ? path.toUpperCase() : basename(path));

export class SerialPorts {
  private keyBytes: Buffer | null = null;
  /** Paths the host was given besides the listed ones (the command line's positionConnectPath), by id. */
  private readonly extra = new Map<string, string>();
  private listed = new Map<string, string>();

  constructor(private readonly home: string) {}

  /** The key of this computer's ids, made the first time a port is named (the command line never makes one it does not need). */
  private key(): Buffer {
    if (this.keyBytes) return this.keyBytes;
    const file = join(this.home, 'position-port-key');
    let key: Buffer | null = null;
    if (existsSync(file)) {
      const k = Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
      if (k.length === 32) key = k;
    }
    if (!key) {
      key = randomBytes(32);
      writeFileSync(`${file}.tmp`, key.toString('hex'), { mode: 0o600 });
      renameSync(`${file}.tmp`, file);
    }
    return (this.keyBytes = key);
  }

  idOf(path: string): string {
    return createHmac('sha256', this.key()).update(path).digest('hex').slice(0, 32);
  }

  /** The ports of this computer, as the page sees them. */
  async list(): Promise<SerialPortInfo[]> {
    const { SerialPort } = await serialport();
    const ports = await SerialPort.list();
    const listed = new Map<string, string>();
    const out: SerialPortInfo[] = [];
    for (const p of ports) {
      const id = this.idOf(p.path);
      listed.set(id, p.path);
      const maker = p.manufacturer ?? (p as { friendlyName?: string }).friendlyName;
      out.push({ id, label: `${portName(p.path)}${maker ? ` — ${maker}` : ''}`.slice(0, 300) });
    }
    this.listed = listed;
    for (const [id, path] of this.extra) if (!listed.has(id)) out.push({ id, label: portName(path) });
    return out;
  }

  /** A path the command line names: known by its id from now on. */
  register(path: string): string {
    const id = this.idOf(path);
    this.extra.set(id, path);
    return id;
  }

  /** The path of a port by its id (listing the ports again when it is not known yet); null when none has it. */
  async pathOf(id: string): Promise<string | null> {
    const known = this.extra.get(id) ?? this.listed.get(id);
    if (known) return known;
    await this.list();
    return this.listed.get(id) ?? null;
  }
}

/** Words for a serial port's error, naming the port by its name: the page is never told a path, not even in a message. */
function serialReason(err: NodeJS.ErrnoException | Error, name: string, path: string): { reason: string; fatal: boolean } {
  const text = err.message.split(path).join(name);
  const code = (err as NodeJS.ErrnoException).code ?? '';
  if (code === 'EACCES' || /Permission denied|Access denied/i.test(text)) {
    return { reason: `Furrow may not open ${name}${process.platform === 'linux' ? ': add your user to the dialout group (sudo usermod -aG dialout $USER), then log in again' : ''}`, fatal: true };
  }
  if (code === 'ENOENT' || /No such file|cannot find|File not found/i.test(text)) return { reason: `${name} is not there: is the receiver plugged in?`, fatal: false };
  if (/busy|EBUSY|Resource temporarily unavailable|Cannot lock/i.test(text)) return { reason: `${name} is in use by another program`, fatal: false };
  return { reason: `${name}: ${text.slice(0, 200)}`, fatal: false };
}

/** The serial port at `path`, at `baud`: its bytes until it is unplugged or closed. */
export function serialLink(path: string, baud: number): OpenLink {
  return (ev: LinkEvents) => {
    const name = portName(path);
    let done = false;
    const end = (reason: string, fatal = false) => { if (!done) { done = true; ev.closed(reason, fatal); } };
    let port: SerialPort | null = null;
    serialport().then(({ SerialPort }) => {
      if (done) return;
      const p = port = new SerialPort({ path, baudRate: baud, autoOpen: false });
      p.on('data', (d: Buffer) => ev.data(d.toString('latin1')));
      p.on('error', (err: Error) => { const r = serialReason(err, name, path); end(r.reason, r.fatal); });
      p.on('close', (err: (Error & { disconnected?: boolean }) | null) => end(err?.disconnected ? `${name} was unplugged` : `${name} was closed`));
      p.open((err) => {
        if (err) {
          const r = serialReason(err, name, path);
          end(r.reason, r.fatal);
        } else if (!done) ev.opened();
      });
    }, (err: unknown) => end(`Serial ports cannot be used on this computer (${err instanceof Error ? err.message : String(err)})`, true));
    return {
      close: () => {
        done = true;
        if (port?.isOpen) port.close(() => {});
      },
    };
  };
}
