// Deactivating an account: the service's own count of the farms, parcels and hectares it would leave behind (billed
// orphans, out of everyone's reach through the API), the choice to delete them first, and what it costs here
// (removed from this computer, with any work the service does not have). A modal dialog: nothing happens before the
// second click, Keep the account has the focus, Esc keeps it; deleting farms shows its progress.
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useDialogFocus } from '../focus/useDialogFocus.ts';
import { RpcError } from '../../../core/rpc.ts';
import { ApiErrorCode } from '../../../core/api-codes.ts';
import type { DeactivationPreview } from '../../../core/api.ts';
import { useApi } from '../../context.ts';
import { say, useApp } from '../../store.ts';
import { hectares } from '../../states.ts';
import { disconnected } from '../settings/account-actions.ts';
import { accountsChanged } from './accounts-store.ts';
import { deactivationWords, plural } from './account-words.ts';

const why = (err: unknown) => (err instanceof Error ? err.message : String(err));

export interface Deactivating { organization: string; account: string; email: string }

export function DeactivateDialog({ target, onClose }: { target: Deactivating; onClose(): void }) {
  const api = useApi();
  const keep = useRef<HTMLButtonElement>(null);
  const [preview, setPreview] = useState<DeactivationPreview | null>(null);
  const [deleteFarms, setDeleteFarms] = useState(false);
  const [discard, setDiscard] = useState(false);
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  // Its keys are its own (onKey below): the hook opens it modal, focuses Keep the account, and gives the focus back.
  const dialog = useDialogFocus<HTMLDialogElement>(onClose, { initial: keep });

  useEffect(() => {
    let live = true;
    api.deactivation({ organization: target.organization, account: target.account })
      .then((p) => { if (live) setPreview(p); }, (err: unknown) => { if (live) setProblem(why(err)); });
    return () => { live = false; };
  }, [api, target]);

  const confirm = async () => {
    if (!preview || busy) return;
    setBusy(true);
    setProblem(null);
    try {
      const r = await api.deactivateAccount(
        { organization: preview.organization, account: preview.account, deleteFarms, seen: { farms: preview.farms.length, parcels: preview.parcels }, ...(discard ? { discardUnsynced: true } : {}) },
        { onProgress: (p) => setProgress(p) },
      );
      const left = r.kept.farms ? `its ${plural(r.kept.farms, 'farm')} (${hectares(r.kept.hectares)}) ${r.kept.farms === 1 ? 'stays' : 'stay'} on the service, billed`
        : r.deleted.farms ? `its ${plural(r.deleted.farms, 'farm')} (${hectares(r.deleted.hectares)}) ${r.deleted.farms === 1 ? 'was' : 'were'} deleted first` : 'it had no farms';
      say(`Deactivated ${preview.email}: ${left}${r.removedHere ? '; removed from this computer' : ''}.`);
      onClose();
      if (r.removedHere) await disconnected(api, preview.account);
      await accountsChanged(api);
    } catch (err) {
      // The service's farms changed since this preview: the new one is shown, to be confirmed again.
      if (err instanceof RpcError && err.code === ApiErrorCode.previewChanged) setPreview(err.details as DeactivationPreview);
      setProblem(why(err));
    } finally {
      setBusy(false);
      setProgress(null);
    }
  };

  const onKey = (e: KeyboardEvent) => {
    // The window's shortcuts and the Accounts screen's Esc wait while the dialog asks.
    e.nativeEvent.stopPropagation();
    if (e.key === 'Escape') { e.preventDefault(); if (!busy) onClose(); }
    else if (e.key === 'Tab') {
      const all = [...(dialog.current?.querySelectorAll<HTMLElement>('button, input') ?? [])].filter((el) => !(el as HTMLButtonElement).disabled);
      const i = all.indexOf(document.activeElement as HTMLElement);
      e.preventDefault();
      all[(i + (e.shiftKey ? all.length - 1 : 1)) % all.length]?.focus();
    }
  };

  const words = preview ? deactivationWords(preview) : null;
  const needsDiscard = Boolean(preview?.connectedHere && preview.unsynced > 0);
  const shown = useApp((s) => s.account?.id === target.account);
  return (
    <dialog ref={dialog} className="confirm deactivate" role="alertdialog" aria-modal="true" aria-labelledby="deactivate-title" aria-describedby="deactivate-what"
      onKeyDown={onKey} onCancel={(e) => { e.preventDefault(); if (!busy) onClose(); }}>
      <h2 id="deactivate-title">Deactivate {target.email}?</h2>
      <div id="deactivate-what">
        {!preview && !problem ? <p>Reading its farms on the service…</p> : null}
        {words && preview ? (
          <>
            <p className="consequence">{words.consequence}</p>
            {preview.farms.length ? (
              <ul className="farms" aria-label="Its farms on the service">
                {preview.farms.slice(0, 8).map((f) => <li key={f.id}>{f.name}: {plural(f.parcels, 'parcel')}, {hectares(f.hectares)}</li>)}
                {preview.farms.length > 8 ? <li>and {plural(preview.farms.length - 8, 'other farm')}</li> : null}
              </ul>
            ) : null}
            {words.here ? <p className={needsDiscard ? 'error' : undefined}>{words.here}{shown ? ' It is the account shown: another is shown after.' : ''}</p> : null}
          </>
        ) : null}
      </div>
      {words?.deleteOption ? (
        <label className="inline"><input type="checkbox" checked={deleteFarms} disabled={busy} onChange={(e) => setDeleteFarms(e.target.checked)} /> {words.deleteOption}</label>
      ) : null}
      {needsDiscard ? (
        <label className="inline"><input type="checkbox" checked={discard} disabled={busy} onChange={(e) => setDiscard(e.target.checked)} /> Discard its {plural(preview!.unsynced, 'unsynced change')}</label>
      ) : null}
      {progress && progress.total > 0 ? <progress max={progress.total} value={progress.done} aria-label={`Deleting farms: ${progress.done} of ${progress.total}`} /> : null}
      {problem ? <p className="error" role="alert">{problem}</p> : null}
      <div className="buttons">
        <button ref={keep} type="button" disabled={busy} onClick={onClose}>Keep the account</button>
        <button type="button" className="danger" disabled={!preview || busy || (needsDiscard && !discard)} onClick={() => void confirm()}>
          {busy ? (deleteFarms ? 'Deleting its farms…' : 'Deactivating…') : deleteFarms && preview?.farms.length ? `Delete ${plural(preview.farms.length, 'farm')} and deactivate` : 'Deactivate'}
        </button>
      </div>
    </dialog>
  );
}
