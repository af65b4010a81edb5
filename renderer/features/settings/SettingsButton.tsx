// The toolbar's Settings button; its shortcut Ctrl+, (as in most desktop apps) lives with it, so the toolbar only
// places it.
import { useEffect } from 'react';
import { toggleSettings, useSettings } from './settings-store.ts';
import { behindPanel } from '../../keymap.ts';

export function SettingsButton() {
  const open = useSettings((s) => s.open);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key === ',' && (useSettings.getState().open || !behindPanel())) {
        e.preventDefault();
        toggleSettings();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  return (
    <button type="button" className="settings-button" aria-label="Settings" aria-keyshortcuts="Control+," title="Settings: accounts and services (Ctrl+,)" aria-expanded={open} onClick={toggleSettings}>
      ⚙<span className="tool-words"> Settings</span>
    </button>
  );
}
