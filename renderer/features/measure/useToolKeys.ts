// The map tools' keys (keymap.ts, as the user mapped them): E starts or stops measuring, G or Ctrl+G opens Go to
// coordinate with its field focused (Ctrl+G even in a field: it types nothing). Never behind a modal panel.
import { useEffect } from 'react';
import { useApp } from '../../store.ts';
import { behindPanel, isShortcut } from '../../keymap.ts';
import { focusSoon } from '../focus/focus-soon.ts';
import { openGoTo } from '../goto/goto-store.ts';
import { toggleMeasure } from './measure-store.ts';

export function useToolKeys(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const ctrlG = (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'g' && !behindPanel();
      if (ctrlG || isShortcut(e, 'goto')) {
        e.preventDefault();
        openGoTo();
        focusSoon('#goto-field', true);
      } else if (isShortcut(e, 'measure') && useApp.getState().account) {
        e.preventDefault();
        toggleMeasure();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}
