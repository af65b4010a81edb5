// How the map and the legend show a sync state: one colour per state the contract names (core/api.ts SyncState), each
// at least 3:1 against the map's background (WCAG 1.4.11; features/map/state-marks.ts adds a mark per state).
import type { SyncState } from '../core/api.ts';

export const STATES: { state: SyncState; label: string; color: string }[] = [
  { state: 'synced', label: 'Synced', color: '#2e7d32' },
  { state: 'pending', label: 'Pending', color: '#b26b00' },
  { state: 'sending', label: 'Sending', color: '#1565c0' },
  { state: 'uncertain', label: 'Uncertain', color: '#5c6bc0' },
  { state: 'rejected', label: 'Rejected', color: '#c62828' },
  { state: 'conflict', label: 'Conflict', color: '#8e24aa' },
  { state: 'blocked', label: 'Blocked', color: '#616161' },
];
const BY_STATE = new Map(STATES.map((s) => [s.state, s]));
export const stateColor = (s: string): string => BY_STATE.get(s as SyncState)?.color ?? '#616161';
export const stateLabel = (s: string): string => BY_STATE.get(s as SyncState)?.label ?? s;

// The formats made once: toLocaleString with options builds a formatter at every call (about 15 µs), and a list of
// 2,000 farms formats each one's hectares.
const SMALL_HA = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 2 });
const HA = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/**
 * Hectares for people: two decimals, and for a small area (under 0.1 ha) two significant digits, so 0.001 ha is
 * "0.001 ha", not "0.00 ha" (a hectare point can be that small); under a square metre, says so.
 */
export const hectares = (ha: number): string => (ha !== 0 && Math.abs(ha) < 0.0001
  // Under a square metre (a walk's first few points, a sliver): "0.000000008 ha" said nothing a person reads.
  ? 'under 1 m²'
  : ha !== 0 && Math.abs(ha) < 0.1
  ? `${SMALL_HA.format(ha)} ha`
  : `${HA.format(ha)} ha`);
