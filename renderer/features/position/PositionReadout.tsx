// On the map, under the position's button: the fix in a line ("RTK fixed · 14 sats · HDOP 0.7 · ±0.02 m · 1 s ago",
// "Stale: …", "No fix"), read again every second so the age counts, and Follow (F), pressed while the map keeps the
// position in view; a pan releases it.
import { useEffect, useState } from 'react';
import { keyHint, useKeyName } from '../../keymap.ts';
import { fixKind, fixWords } from './position-words.ts';
import { setPosition, usePosition } from './position-store.ts';

export function PositionReadout() {
  const fix = usePosition((s) => s.state?.fix ?? null);
  const follow = usePosition((s) => s.follow);
  const key = useKeyName('follow');
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!fix) return;
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [fix]);
  if (!fix) return null;
  const kind = fixKind(fix, now);
  return (
    <div className={`position-readout fix-${kind}`}>
      <span aria-label="Position fix" data-field="fix">{fixWords(fix, now)}</span>
      <button type="button" aria-pressed={follow} aria-keyshortcuts={key ?? undefined} title={`Follow my position: the map keeps it in view; panning stops it${keyHint(key)}`}
        onClick={() => setPosition({ follow: !follow })}>Follow</button>
    </div>
  );
}
