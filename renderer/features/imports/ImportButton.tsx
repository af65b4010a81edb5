// The toolbar's Import (I): the file chooser, for the keyboard and for anyone who would rather not drag. The chosen
// file goes where a dropped one does (import-actions.ts previewFile).
import { useEffect, useRef } from 'react';
import { useApi } from '../../context.ts';
import { useApp } from '../../store.ts';
import { isShortcut, keyHint, useKeyName } from '../../keymap.ts';
import { previewFile } from './import-actions.ts';
import { ACCEPT } from './import-words.ts';

export function ImportButton() {
  const api = useApi();
  const ready = useApp((s) => s.account !== null);
  const input = useRef<HTMLInputElement>(null);
  const key = useKeyName('import');

  useEffect(() => {
    if (!ready) return;
    const onKey = (e: KeyboardEvent) => {
      if (!isShortcut(e, 'import')) return;
      if (useApp.getState().mode !== 'browse') return;
      e.preventDefault();
      input.current?.click();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [ready]);

  return (
    <>
      <button type="button" className="import-button" aria-label="Import" aria-keyshortcuts={key ?? undefined} title={`Import a GeoJSON, KML or zipped Shapefile: preview every feature first${keyHint(key)}, or drop the file on the map`}
        disabled={!ready} onClick={() => input.current?.click()}>
        ⇪<span className="tool-words"> Import</span>
      </button>
      <input ref={input} type="file" hidden accept={ACCEPT} aria-label="File to import"
        onChange={(e) => {
          const file = e.target.files?.[0];
          e.target.value = ''; // the same file chosen again is a new choice
          if (file) void previewFile(api, file);
        }} />
    </>
  );
}
