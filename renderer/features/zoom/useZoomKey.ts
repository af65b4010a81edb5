// The Z shortcut: zoom to the selected parcel (or the current farm); never while typing in a field.
import { useEffect } from 'react';
import type { AppApi } from '../../backend.ts';
import { zoomToSelection } from './zoom.ts';
import { isField } from '../../keys.ts';


export function useZoomKey(api: AppApi) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isField(e.target) || e.ctrlKey || e.metaKey || e.altKey || e.key.toLowerCase() !== 'z') return;
      e.preventDefault();
      void zoomToSelection(api);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [api]);
}
