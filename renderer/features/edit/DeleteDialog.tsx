// The delete confirmation: a modal dialog naming the parcel and its hectares. The native modal <dialog> makes the
// rest of the page inert; Tab cycles between its two buttons; it starts on Cancel (an Enter pressed once too often
// must not delete), Esc cancels, and the focus goes back to where it was (features/focus/useDialogFocus.ts).
import { useRef, type KeyboardEvent } from 'react';
import { useApi } from '../../context.ts';
import { hectares } from '../../states.ts';
import { setEdit, useEdit } from './edit-store.ts';
import { confirmDelete } from './actions.ts';
import { useDialogFocus } from '../focus/useDialogFocus.ts';

export function DeleteDialog() {
  const api = useApi();
  const deleting = useEdit((s) => s.deleting);
  const keep = useRef<HTMLButtonElement>(null);
  const cancel = () => setEdit({ deleting: null });
  const dialog = useDialogFocus<HTMLDialogElement>(cancel, { open: deleting !== null, initial: keep, opener: '.toolbar [aria-label=Delete], .map' });
  const onKey = (e: KeyboardEvent) => {
    // The window's shortcuts (D, P, S, Ctrl+Z…) wait while the dialog asks; Enter still presses the focused button.
    e.nativeEvent.stopPropagation();
    if (e.key === 'Escape') { e.preventDefault(); cancel(); }
    else if (e.key === 'Tab') {
      // Two buttons: the focus stays on one of them, never leaves for the browser's own UI.
      const buttons = [...(dialog.current?.querySelectorAll('button') ?? [])];
      const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
      e.preventDefault();
      buttons[(i + (e.shiftKey ? buttons.length - 1 : 1)) % buttons.length]?.focus();
    }
  };

  return (
    <dialog ref={dialog} className="confirm" role="alertdialog" aria-modal="true" aria-labelledby="delete-title" aria-describedby="delete-what"
      onKeyDown={onKey} onCancel={(e) => { e.preventDefault(); cancel(); }}>
      {deleting ? (
        <>
          <h2 id="delete-title">Delete parcel?</h2>
          <p id="delete-what"><strong>{deleting.name}</strong> ({hectares(deleting.hectares)}) is deleted here now and on the service at the next sync. Undo (Ctrl+Z) brings it back until then.</p>
          <div className="buttons">
            <button type="button" className="danger" onClick={() => void confirmDelete(api)}>Delete {deleting.name}</button>
            <button ref={keep} type="button" onClick={cancel}>Cancel</button>
          </div>
        </>
      ) : null}
    </dialog>
  );
}
