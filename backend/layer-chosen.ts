// Files the user chose in Electron's open dialog, by ticket: main shows the dialog (its own, native: the page never
// sees a path), hands the host the path with a fresh ticket (core/host-protocol.ts LAYER_FILE_CHOSEN, on the host's
// channel from main), and gives the page only the ticket, which the page redeems once (addLayerFileChosen) within
// TICKET_TTL_MS. The ticket and the path travel on two channels (main → host, main → page → host): a redeem that
// arrives first waits a moment for its path.
import { isLayerFileChosen } from '../core/host-protocol.ts';

/** How long a ticket can be redeemed after the user chose its file. */
export const TICKET_TTL_MS = 5 * 60_000;
/** How long a redeem waits for a ticket main has not handed over yet. */
const WAIT_MS = 5_000;
/** Tickets held at once (a page cannot make main open dialogs faster than a person answers them). */
const MAX_TICKETS = 32;

export class ChosenPaths {
  private readonly tickets = new Map<string, { path: string; expires: number }>();
  private readonly waiting = new Map<string, (path: string) => void>();
  /** Tickets redeemed already (the newest few hundred): asked again, refused at once. */
  private readonly spent = new Set<string>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A message from main: kept when it is a chosen file's ticket (else ignored); whether it was. */
  take(message: unknown): boolean {
    if (!isLayerFileChosen(message)) return false;
    for (const [t, v] of this.tickets) if (v.expires <= this.now()) this.tickets.delete(t);
    while (this.tickets.size >= MAX_TICKETS) this.tickets.delete(this.tickets.keys().next().value!);
    const w = this.waiting.get(message.ticket);
    if (w) {
      this.waiting.delete(message.ticket);
      w(message.path);
    } else this.tickets.set(message.ticket, { path: message.path, expires: this.now() + TICKET_TTL_MS });
    return true;
  }

  /** The path of `ticket`, once (null: unknown, spent or expired). */
  async redeem(ticket: string, waitMs = WAIT_MS): Promise<string | null> {
    const t = this.tickets.get(ticket);
    if (t) {
      this.tickets.delete(ticket);
      this.spend(ticket);
      return t.expires > this.now() ? t.path : null;
    }
    if (this.waiting.has(ticket) || this.spent.has(ticket)) return null;
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.waiting.delete(ticket); resolve(null); }, waitMs);
      this.waiting.set(ticket, (path) => { clearTimeout(timer); this.spend(ticket); resolve(path); });
    });
  }

  private spend(ticket: string): void {
    this.spent.add(ticket);
    if (this.spent.size > 256) this.spent.delete(this.spent.values().next().value!);
  }
}
