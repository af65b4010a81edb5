// What the position panel and the map's readout say (issue 31), apart from the components so that every wording is
// tested without a browser: the source and its connection in words, a fix's quality, satellites, HDOP, accuracy and
// age ("RTK fixed · 14 sats · HDOP 0.7 · ±0.02 m · 1 s ago"), and whether the fix is live, stale or no fix at all.
import type { Fix, FixQuality, PositionSource, PositionState } from '../../../core/api.ts';

/** A fix older than this is stale: drawn greyed, said so, not followed. */
export const STALE_MS = 5_000;

export const QUALITY_WORDS: Readonly<Record<FixQuality, string>> = {
  none: 'No fix', gps: 'GPS', dgps: 'DGPS', pps: 'PPS', 'rtk-fixed': 'RTK fixed', 'rtk-float': 'RTK float', estimated: 'Estimated (dead reckoning)',
  manual: 'Manual', simulation: 'Simulation', system: "System's location",
};

export function sourceWords(s: PositionSource): string {
  switch (s.kind) {
    case 'serial': return `serial port at ${s.baud} baud`;
    case 'tcp': return `TCP ${s.host}:${s.port}`;
    case 'udp': return `UDP port ${s.port}`;
    case 'gpsd': return `gpsd at ${s.host}:${s.port}`;
    case 'system': return "the system's location";
  }
}

/** The connection in one sentence. */
export function statusWords(st: PositionState): string {
  const from = st.source ? sourceWords(st.source) : '';
  const why = st.message ? `: ${st.message}` : '';
  switch (st.status) {
    case 'off': return 'Not connected.';
    case 'connecting': return `Connecting to ${from}…`;
    case 'connected': return `Connected to ${from}.`;
    case 'reconnecting': return `Reconnecting to ${from}${why || '…'}`;
    case 'failed': return `Failed to connect to ${from}${why}`;
  }
}

export type FixKind = 'none' | 'no-fix' | 'stale' | 'live';

/** Whether there is a position to draw, and how: a live fix, a stale one (the last seen), or no fix (none now). */
export function fixKind(fix: Fix | null, nowMs: number): FixKind {
  if (!fix) return 'none';
  if (fix.quality === 'none') return 'no-fix';
  return nowMs - fix.received > STALE_MS ? 'stale' : 'live';
}

/** "1 s ago", "3 min ago". */
export function ageWords(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `${s} s ago`;
  const m = Math.round(s / 60);
  return m < 90 ? `${m} min ago` : `${Math.round(m / 60)} h ago`;
}

/** Metres as a receiver's accuracy reads: centimetres for RTK, decimetres to metres otherwise. */
export const metres = (m: number): string => `${m < 1 ? +m.toFixed(2) : m < 10 ? +m.toFixed(1) : Math.round(m)} m`;

/** The readout under the marker. */
export function fixWords(fix: Fix | null, nowMs: number): string {
  const kind = fixKind(fix, nowMs);
  if (kind === 'none' || !fix) return 'No position yet';
  const parts = [kind === 'no-fix' ? 'No fix' : QUALITY_WORDS[fix.quality]];
  if (fix.satellites !== null) parts.push(`${fix.satellites} sats`);
  if (fix.hdop !== null) parts.push(`HDOP ${+fix.hdop.toFixed(1)}`);
  if (fix.accuracy !== null && kind !== 'no-fix') parts.push(`±${metres(fix.accuracy)}`);
  parts.push(ageWords(nowMs - fix.received));
  return `${kind === 'stale' ? 'Stale: ' : ''}${parts.join(' · ')}`;
}

/** Whether the heading is worth an arrow: the receiver says it and is moving (a standing receiver's course is noise). */
export const moving = (fix: Fix): boolean => fix.heading !== null && (fix.speed ?? 0) >= 0.5;
