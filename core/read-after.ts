// Read-your-writes across a primary and its standby (docs/api.md, "Reads from a standby"): the service answers each
// write with the primary's WAL position after it (READ_AFTER_LSN_HEADER); a client sends the highest position it has
// seen back on its reads (READ_AFTER_HEADER), and the service serves the read from the standby only once the standby
// has replayed that far. Both sides share the header names and the LSN arithmetic, so they live here.

/** Answer header of a write (2xx): the primary's WAL insert position once the write committed, e.g. `0/3000148`. */
export const WRITE_LSN_HEADER = 'furrow-lsn';
/** Request header of a read: an LSN from WRITE_LSN_HEADER, or `primary` (a write whose outcome the client does not know). */
export const READ_AFTER_HEADER = 'furrow-read-after';
/** Answer header of a read that could be routed: `standby` or `primary`, which served it. */
export const READ_FROM_HEADER = 'furrow-read-from';
/** The READ_AFTER_HEADER value asking for the primary whatever the standby has replayed. */
export const READ_AFTER_PRIMARY = 'primary';

const LSN = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/;

/** PostgreSQL's text form of a pg_lsn (`hi/lo`, hex) as a number that orders as the WAL does; null when not one. */
export function parseLsn(text: string): bigint | null {
  const m = LSN.exec(text.trim());
  return m ? (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`) : null;
}

/** The later of two LSNs in text form (null counts as none); an unreadable one never wins. */
export function laterLsn(a: string | null, b: string | null): string | null {
  const pa = a === null ? null : parseLsn(a);
  const pb = b === null ? null : parseLsn(b);
  if (pb === null) return pa === null ? null : a;
  if (pa === null) return b;
  return pb > pa ? b : a;
}
