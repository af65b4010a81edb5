// The Z shortcut: zoom to the selected parcel (or the current farm); never while typing in a field.
import { useEffect } from 'react';
import type { AppApi } from '../../backend.ts';
import { zoomToSelection } from './zoom.ts';
import { isShortcut } from '../../keymap.ts';

export function useZoomKey(api: AppApi) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!isShortcut(e, 'zoom')) return;
      e.preventDefault();
      void zoomToSelection(api);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [api]);
}
