// The toolbar's Import (I): the file chooser, for the keyboard and for anyone who would rather not drag. The chosen
// file goes where a dropped one does (import-actions.ts previewFile).
import { useEffect, useRef } from 'react';
import { useApi } from '../../context.ts';
import { useApp } from '../../store.ts';
import { isField } from '../../keys.ts';
import { previewFile } from './import-actions.ts';
import { ACCEPT } from './import-words.ts';

export function ImportButton() {
  const api = useApi();
  const ready = useApp((s) => s.account !== null);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (!ready) return;
    const onKey = (e: KeyboardEvent) => {
      if (isField(e.target) || e.ctrlKey || e.metaKey || e.altKey || e.key.toLowerCase() !== 'i') return;
      if (useApp.getState().mode !== 'browse') return;
      e.preventDefault();
      input.current?.click();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [ready]);

  return (
    <>
      <button type="button" aria-label="Import" aria-keyshortcuts="I" title="Import a GeoJSON, KML or zipped Shapefile: preview every feature first (I), or drop the file on the map"
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
