// A draft lost on reload: while a polygon is drawn, a point dropped or a shape modified and not saved, closing or
// reloading the page asks first (the browser's own prompt; its wording is the browser's).
import { useEffect } from 'react';
import { useApp } from '../../store.ts';
import { useEdit } from './edit-store.ts';
import { sameShape } from './shape.ts';

/** Whether something on the map would be lost: plain data of the two stores. */
export function hasUnsavedDraft(): boolean {
  const { mode, draft, point } = useApp.getState();
  const { editing, rings } = useEdit.getState();
  if (mode === 'draw') return draft.length > 0;
  if (mode === 'point') return point !== null;
  if (mode === 'modify') return editing !== null && !sameShape(rings, editing.original);
  return false;
}

export function useUnsavedWarning(): void {
  useEffect(() => {
    const onUnload = (e: BeforeUnloadEvent) => {
      if (!hasUnsavedDraft()) return;
      e.preventDefault();
      // Older browsers (and Electron's) ask only when returnValue is set.
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', onUnload);
    return () => window.removeEventListener('beforeunload', onUnload);
  }, []);
}
