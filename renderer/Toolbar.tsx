// The toolbar: every button named for screen readers, with its shortcut announced (aria-keyshortcuts) and shown
// in its tooltip. The shortcuts themselves are App.tsx's; drawing's own keys are the map's (features/draw/).
import { useApi } from './context.ts';
import { redo, undo } from './actions.ts';
import { syncNow } from './features/status/sync-now.ts';
import { EditTools } from './features/edit/EditTools.tsx';
import { startDrawing, startPoint, stopDrawing, useApp } from './store.ts';
import { SettingsButton } from './features/settings/SettingsButton.tsx';
import { ImportButton } from './features/imports/ImportButton.tsx';
import { keyHint, useKeyName } from './keymap.ts';

export function Toolbar() {
  const api = useApi();
  const mode = useApp((s) => s.mode);
  const history = useApp((s) => s.history);
  const syncing = useApp((s) => s.syncing);
  const ready = useApp((s) => s.account !== null);
  const keys = { draw: useKeyName('draw'), point: useKeyName('point'), sync: useKeyName('sync') };
  return (
    <div className="toolbar" role="toolbar" aria-label="Tools">
      <button type="button" aria-label="Draw polygon" aria-keyshortcuts={keys.draw ?? undefined} title={`Draw polygon${keyHint(keys.draw)}`} aria-pressed={mode === 'draw'} disabled={!ready}
        onClick={() => (mode === 'draw' ? stopDrawing() : startDrawing())}>
        ⬠<span className="tool-words"> Draw polygon</span>
      </button>
      <button type="button" aria-label="Drop hectare point" aria-keyshortcuts={keys.point ?? undefined} title={`Drop hectare point${keyHint(keys.point)}`} aria-pressed={mode === 'point'} disabled={!ready}
        onClick={() => (mode === 'point' ? stopDrawing() : startPoint())}>
        ⊡<span className="tool-words"> Drop hectare point</span>
      </button>
      <EditTools />
      <button type="button" aria-label="Undo" aria-keyshortcuts="Control+Z" title={history.undo ? `Undo: ${history.undo} (Ctrl+Z)` : 'Undo (Ctrl+Z)'}
        disabled={!history.undo || mode !== 'browse'} onClick={() => void undo(api)}>
        ↶<span className="tool-words"> Undo</span>
      </button>
      <button type="button" aria-label="Redo" aria-keyshortcuts="Control+Shift+Z" title={history.redo ? `Redo: ${history.redo} (Ctrl+Shift+Z)` : 'Redo (Ctrl+Shift+Z)'}
        disabled={!history.redo || mode !== 'browse'} onClick={() => void redo(api)}>
        ↷<span className="tool-words"> Redo</span>
      </button>
      {/* While it syncs, aria-busy: pressed again, it asks for one more sync when this one ends (sync-now.ts). */}
      <button type="button" aria-label="Sync now" aria-keyshortcuts={keys.sync ?? undefined} title={`${syncing ? 'A sync is running: another follows when it ends' : 'Sync now'}${keyHint(keys.sync)}`}
        disabled={!ready} aria-busy={syncing || undefined} onClick={() => { void syncNow(api); }}>
        ⟳<span className="tool-words"> Sync now</span>
      </button>
      <ImportButton />
      <SettingsButton />
    </div>
  );
}
