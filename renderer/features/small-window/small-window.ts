// A small window: a phone-sized one, or a desktop one at 200 % zoom (1280x800 at 200 % is 640x400 CSS pixels). There
// the map is a few hundred pixels across, and what floats over it (the legend, the panels) is laid out to leave it
// room (small-window.css). One query for the CSS and for the components that change with it.
import { useEffect, useState } from 'react';

export const SMALL_WINDOW = '(max-width: 800px), (max-height: 560px)';

/** Whether the window is small now, following it as it changes (Ctrl+ and Ctrl- change it too). */
export function useSmallWindow(): boolean {
  const [small, setSmall] = useState(() => window.matchMedia(SMALL_WINDOW).matches);
  useEffect(() => {
    const q = window.matchMedia(SMALL_WINDOW);
    const follow = () => setSmall(q.matches);
    q.addEventListener('change', follow);
    follow();
    return () => q.removeEventListener('change', follow);
  }, []);
  return small;
}
