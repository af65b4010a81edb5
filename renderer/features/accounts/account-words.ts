// The Accounts screen's words: an account's state here, its token's expiry, and what deactivating it does to its
// farms, in sentences with counts and hectares (a block's way out: renderer/blocked-words.ts). Pure, tested beside it.
import type { AccountSummary, DeactivationPreview, OrgAccount, Organization, TokenState } from '../../../core/api.ts';
import { hectares } from '../../states.ts';

export const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** A token this close to its expiry is flagged: a sync started now might outlast it. */
export const NEAR_EXPIRY_MS = 30 * 60_000;

/** "2 h 05 min", "12 min", "under a minute". */
export function duration(ms: number): string {
  const min = Math.floor(Math.abs(ms) / 60_000);
  if (min < 1) return 'under a minute';
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return `${h} h ${String(min % 60).padStart(2, '0')} min`;
  return `${Math.floor(h / 24)} days`;
}

export interface TokenWords { text: string; level: 'ok' | 'near' | 'expired' | 'none' }

/** The token's expiry for people, and how urgent it is. */
export function tokenWords(t: TokenState, now = Date.now()): TokenWords {
  if (t.source === 'organization') return { text: "Renewed with the organization's key", level: 'none' };
  if (!t.expires) return { text: 'No expiry known', level: 'none' };
  const left = Date.parse(t.expires) - now;
  const at = new Date(t.expires).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });
  if (t.expired || left <= 0) return { text: `Expired ${duration(left)} ago (${at})`, level: 'expired' };
  return { text: `Expires in ${duration(left)} (${at})`, level: left < NEAR_EXPIRY_MS ? 'near' : 'ok' };
}

/** An account's state on this computer in a few words: blocked, work to send, or synced. */
export function hereWords(a: AccountSummary): { text: string; level: 'ok' | 'pending' | 'attention' } {
  if (a.blocked) return { text: `Blocked: ${a.blocked.reason}`, level: 'attention' };
  const c = a.counts;
  const look = c.rejected + c.conflicts + c.blocked;
  const toSend = c.pending + c.in_flight + c.uncertain;
  const parts = [toSend ? `${toSend.toLocaleString('en-US')} to send` : '', look ? `${look.toLocaleString('en-US')} need a look` : ''].filter(Boolean);
  if (parts.length) return { text: parts.join(', '), level: look ? 'attention' : 'pending' };
  return a.lastPull ? { text: `Synced (${c.synced.toLocaleString('en-US')} items)`, level: 'ok' } : { text: 'Not pulled yet', level: 'pending' };
}

/** The account on the service, in words. */
export function serviceState(a: OrgAccount): string {
  if (a.state === 'active') return 'Active';
  if (a.state === 'missing') return 'Unknown to the service';
  return a.deactivated ? `Deactivated ${a.deactivated.slice(0, 10)}` : 'Deactivated';
}

/** What deactivating leaves behind, as the confirmation says it. */
export function deactivationWords(p: DeactivationPreview): { consequence: string; deleteOption: string | null; here: string | null } {
  const what = `${plural(p.farms.length, 'farm')} with ${plural(p.parcels, 'parcel')} (${hectares(p.hectares)})`;
  const consequence = p.farms.length === 0
    ? `${p.email} has no farms on the service: nothing of it stays billed. Its access through the API ends at once; the organization can reactivate it in the service's admin panel.`
    : `Its ${what} ${p.farms.length === 1 ? 'stays' : 'stay'} on the service and ${p.farms.length === 1 ? 'keeps' : 'keep'} being billed, but no one can reach ${p.farms.length === 1 ? 'it' : 'them'} through the API any more: billed orphans, until the organization reactivates the account or deletes ${p.farms.length === 1 ? 'it' : 'them'} in the service's admin panel.`;
  const deleteOption = p.farms.length ? `Delete its ${what} first: gone for good, no longer billed` : null;
  const here = !p.connectedHere ? null
    : p.unsynced ? `It is removed from this computer too, with ${plural(p.unsynced, 'change')} made here that the service does not have: they are lost.`
    : 'It is removed from this computer too (nothing of it is waiting to be sent).';
  return { consequence, deleteOption, here };
}

/** Each account's name (its label, else its id), with its id's end where two would read the same (a stale twin). */
export function accountNames(accounts: readonly Pick<AccountSummary, 'id' | 'label'>[]): Map<string, string> {
  const plain = accounts.map((a) => a.label || a.id);
  return new Map(accounts.map((a, i) => [a.id, plain.indexOf(plain[i]!) === plain.lastIndexOf(plain[i]!) ? plain[i]! : `${plain[i]!} (…${a.id.slice(-6)})`]));
}

/**
 * "Demo grower · http://…" for each account, with its id's end added where two would read the same (an account
 * left in the mirror from an earlier service on the same address, say): a chooser must never offer twins.
 */
export function accountChoices(accounts: readonly Pick<AccountSummary, 'id' | 'label' | 'service'>[]): Map<string, string> {
  const plain = accounts.map((a) => `${a.label || a.id} · ${a.service}`);
  return new Map(accounts.map((a, i) => [a.id, plain.indexOf(plain[i]!) === plain.lastIndexOf(plain[i]!) ? plain[i]! : `${a.label || a.id} (…${a.id.slice(-6)}) · ${a.service}`]));
}

/**
 * Each organization's heading: "Agro Consult Sur at http://…" by the name its service gave, with the end of its id on
 * the service where two read alike (two organizations of one name, or never named); "Organization at …" unnamed.
 */
export function orgTitles(orgs: readonly Pick<Organization, 'id' | 'service' | 'name' | 'remoteId'>[]): Map<string, string> {
  const plain = orgs.map((o) => `${o.name ?? 'Organization'} at ${o.service}`);
  return new Map(orgs.map((o, i) => {
    if (plain.indexOf(plain[i]!) === plain.lastIndexOf(plain[i]!)) return [o.id, plain[i]!];
    const tail = (o.remoteId ?? o.id).slice(-6);
    return [o.id, `${o.name ?? 'Organization'} (…${tail}) at ${o.service}`];
  }));
}

/** What a stale account has that the service never got, in words: "3 changes not sent, 1 conflict", or null. */
export function unsentWords(c: AccountSummary['counts']): string | null {
  const toSend = c.pending + c.in_flight + c.uncertain + c.rejected + c.blocked;
  const parts = [toSend ? plural(toSend, 'change') + ' not sent' : '', c.conflicts ? plural(c.conflicts, 'conflict') : ''].filter(Boolean);
  return parts.length ? parts.join(', ') : null;
}

/**
 * What exporting a stale account's unsent work gave, as the status line says it: the parcels in the file, and the
 * changes no file of parcels can hold (a farm made here, a crop, a parcel deleted) that are lost with it.
 */
export function unsentExportWords(name: string, r: { parcels: number; fileName: string; otherUnsent?: number }): string {
  const others = r.otherUnsent ?? 0;
  const rest = others ? ` ${plural(others, 'other change')} (a farm's, a crop's or a deletion) ${others === 1 ? 'is not a parcel' : 'are not parcels'} and cannot be exported.` : '';
  if (!r.parcels) return `No parcel of ${name} has unsent changes: nothing to export.${rest}`;
  return `Exported the ${plural(r.parcels, 'parcel')} with changes ${name} never sent to ${r.fileName}.${rest}`;
}
