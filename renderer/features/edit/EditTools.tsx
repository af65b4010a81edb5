// The toolbar's Modify and Delete, their shortcuts (M, Delete) and the delete confirmation; also the warning before
// a reload loses a draft. Mounted once, in the toolbar.
import { useEffect } from 'react';
import { useApi } from '../../context.ts';
import { useApp } from '../../store.ts';
import { askDelete, cancelModify, startModify } from './actions.ts';
import { DeleteDialog } from './DeleteDialog.tsx';
import { useEdit } from './edit-store.ts';
import { useUnsavedWarning } from './useUnsavedWarning.ts';
import { isField } from '../../keys.ts';
import { behindPanel, isShortcut, useKeyName } from '../../keymap.ts';

export function EditTools() {
  const api = useApi();
  const mode = useApp((s) => s.mode);
  const selected = useApp((s) => s.selectedId !== null);
  const deleting = useEdit((s) => s.deleting !== null);
  const key = useKeyName('modify');
  useUnsavedWarning();

  // Another tool taken while modifying (D, P, another account): the shape being modified is dropped with Modify.
  useEffect(() => {
    if (mode !== 'modify' && useEdit.getState().editing) cancelModify();
  }, [mode]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isField(e.target) || e.ctrlKey || e.metaKey || e.altKey || useEdit.getState().deleting || behindPanel()) return;
      const { mode: now } = useApp.getState();
      if (isShortcut(e, 'modify')) {
        e.preventDefault();
        if (now === 'modify') cancelModify();
        else void startModify(api);
      } else if (e.key === 'Delete' && now === 'browse') {
        e.preventDefault();
        void askDelete(api);
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [api]);

  return (
    <>
      <button type="button" aria-label="Modify" aria-keyshortcuts={key ?? undefined} aria-pressed={mode === 'modify'}
        title={`${selected || mode === 'modify' ? 'Modify the selected parcel: drag its vertices, or drag it whole' : 'Modify: select a parcel first'}${key ? ` (${key})` : ''}`}
        disabled={!(selected && mode === 'browse') && mode !== 'modify'}
        onClick={() => (mode === 'modify' ? cancelModify() : void startModify(api))}>
        ✎<span className="tool-words"> Modify</span>
      </button>
      <button type="button" aria-label="Delete" aria-keyshortcuts="Delete" title={selected ? 'Delete the selected parcel (Delete)' : 'Delete: select a parcel first (Delete)'}
        disabled={!selected || mode !== 'browse' || deleting} onClick={() => void askDelete(api)}>
        ✕<span className="tool-words"> Delete</span>
      </button>
      <DeleteDialog />
    </>
  );
}
