// How many receivers on the network a page may have the host try (issue 31): a page chooses a TCP or gpsd receiver
// by host and port, and a UDP port to listen on, and the host opens the socket. Unbounded, a compromised page could
// try every host and port of the user's network and of this computer, and read from the outcome which answer: a
// port scanner run from inside. So every page together may have the host try at most NEW_TARGETS_PER_MINUTE targets
// it has not tried before in any minute — a person typing their receiver's address needs one or two — and a target
// already tried is free (choosing it again, switching between two receivers). Host-wide, not per page session: a page
// gets a new session by reloading. The command line, the user's own process, is not limited (backend/host.ts gives the
// limit to page sessions only). The outcome of a try is told uniformly besides (backend/position/connection.ts).
import { ApiErrorCode } from '../../core/api-codes.ts';
import type { PositionSource } from '../../core/api-position.ts';
import { RpcError } from '../../core/rpc.ts';

export const NEW_TARGETS_PER_MINUTE = 5;
const WINDOW_MS = 60_000;
/** Targets remembered as tried (the oldest forgotten first): more than a user ever has. */
const KNOWN_MAX = 64;

/** What a source reaches on the network, or null (a serial port the host listed, the system's location). */
export function targetOf(s: PositionSource): string | null {
  switch (s.kind) {
    // TCP and gpsd reach the same kind of thing, a host's TCP port: one target whichever is chosen.
    case 'tcp': case 'gpsd': return `tcp ${s.host.toLowerCase()} ${s.port}`;
    case 'udp': return `udp ${s.port}`;
    default: return null;
  }
}

export class TargetLimit {
  private readonly known = new Set<string>();
  /** When each of the last new targets was admitted. */
  private recent: number[] = [];

  constructor(private readonly now: () => number = Date.now, private readonly perMinute = NEW_TARGETS_PER_MINUTE) {}

  /** A target tried without the limit's word (the source kept on this computer, connected at start). */
  know(source: PositionSource): void {
    const t = targetOf(source);
    if (t) this.remember(t);
  }

  /** Lets a page try `source`, or refuses (too_many_targets, with the seconds to wait in the details). */
  admit(source: PositionSource): void {
    const t = targetOf(source);
    if (t === null) return;
    if (this.known.has(t)) {
      this.remember(t);
      return;
    }
    const now = this.now();
    this.recent = this.recent.filter((at) => now - at < WINDOW_MS);
    if (this.recent.length >= this.perMinute) {
      const retryAfterS = Math.max(1, Math.ceil((this.recent[0]! + WINDOW_MS - now) / 1000));
      throw new RpcError(ApiErrorCode.tooManyTargets,
        `The app has tried ${this.perMinute} new receivers within a minute, as many as it will: try this one in ${retryAfterS} s, or one tried before. (The limit keeps a web page from using the app to probe your network.)`,
        { retryAfterS });
    }
    this.recent.push(now);
    this.remember(t);
  }

  private remember(t: string): void {
    this.known.delete(t);
    this.known.add(t);
    if (this.known.size > KNOWN_MAX) this.known.delete(this.known.values().next().value!);
  }
}
