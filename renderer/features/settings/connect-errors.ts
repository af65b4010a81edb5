// What the Connect form says when a connection fails: the backend's refusal turned into what to do about it. Pure,
// so each case is tested (connect-errors.test.ts) without a service.
import { RpcCode, RpcError } from '../../../core/rpc.ts';
import { ApiErrorCode } from '../../../core/api-codes.ts';

/**
 * The service address as typed, trimmed of trailing slashes, or why it is not one. The backend checks it too
 * (sync/connect.ts); asking here first spares a round trip and names the fix before anything is sent.
 */
export function serviceAddress(text: string): { url: string } | { problem: string } {
  const t = text.trim();
  let u: URL;
  try {
    u = new URL(t);
  } catch {
    return { problem: `"${t}" is not a service address: type it whole, like http://127.0.0.1:8080 or https://parcels.example.org.` };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { problem: `The service address must start with http:// or https:// (not ${u.protocol}).` };
  if (u.username || u.password) return { problem: 'Leave the user name and password out of the address: the key or token goes in its own field.' };
  return { url: t.replace(/\/+$/, '') };
}

const isNetwork = (message: string) => /could not connect|no answer|not tried|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|timed? ?out/i.test(message);

/** A failed `connect` as one readable sentence with what to do next. */
export function connectProblem(err: unknown, service: string): string {
  // Without its closing full stop: each sentence below adds its own.
  const message = (err instanceof Error ? err.message : String(err)).replace(/[.\s]+$/, '');
  if (err instanceof RpcError) {
    const reason = (err.details as { reason?: unknown } | undefined)?.reason;
    if (err.code === ApiErrorCode.connectRefused && reason === 'refused') {
      return `${message}. Check the API key and the account id (or the token): they must be the ones this service issued.`;
    }
    if (err.code === ApiErrorCode.connectRefused) return `${message}. Correct the form and connect again.`;
    if (err.code === RpcCode.invalidArguments) return `Some fields are not accepted (${message}). Correct them and connect again.`;
    if (err.code === RpcCode.disconnected) return `The app's backend is gone (${message}): restart the app.`;
  }
  if (isNetwork(message)) return `Could not reach ${service} (${message}). Check the address, that the service is running and that this computer is online.`;
  return `Could not connect: ${message}`;
}

/** The counts a disconnect was refused with (core/api.ts disconnect: unsynced_work, details are db/accounts.ts's UnsyncedWork). */
export function unsyncedSummary(details: unknown): string {
  const d = details as { byState?: Record<string, number>; conflicts?: number; total?: number } | undefined;
  const parts = Object.entries(d?.byState ?? {}).filter(([, n]) => n > 0).map(([state, n]) => `${n} ${state.replace('_', ' ')}`);
  if (d?.conflicts) parts.push(`${d.conflicts} open conflict(s)`);
  return parts.length ? parts.join(', ') : 'unsynced changes';
}
