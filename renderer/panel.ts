// What every panel over the map does (settings, sync details, the rotation table, the keyboard help): it takes the
// focus when it opens, so that a screen reader reads it and the keys go to it, and Esc closes it.
import { useEffect, useRef } from 'react';

/** A ref for the panel's element; `close` runs on Esc (pressed anywhere while the panel is open). */
export function usePanel<T extends HTMLElement = HTMLElement>(close: () => void) {
  const panel = useRef<T>(null);
  const closing = useRef(close);
  closing.current = close;
  useEffect(() => {
    panel.current?.focus();
    const onKey = (e: KeyboardEvent) => { if (e.key === 'Escape') { e.preventDefault(); closing.current(); } };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  return panel;
}
