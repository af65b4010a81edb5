// Settings' keyboard shortcuts (WCAG 2.1.4): the single keys switched off, or each one changed to another key,
// remembered across restarts (keymap.ts). A key taken by another shortcut, or not one character, is refused inline
// and the one in use stays.
import { useState } from 'react';
import { DEFAULT_KEYS, SHORTCUT_IDS, SHORTCUT_NAMES, keyProblem, setKeymap, useKeymap, type ShortcutId } from '../../keymap.ts';

export function ShortcutSettings() {
  const { enabled, keys } = useKeymap();
  // What was typed but refused, shown in its field with the reason until it is corrected.
  const [typed, setTyped] = useState<Partial<Record<ShortcutId, string>>>({});
  const change = (id: ShortcutId, text: string) => {
    const key = text.trim().slice(-1); // a second character typed replaces the first
    if (key && keyProblem(keys, id, key) === null) {
      setKeymap({ keys: { ...keys, [id]: key.toLowerCase() } });
      setTyped(({ [id]: _, ...rest }) => rest);
    } else setTyped((t) => ({ ...t, [id]: key }));
  };
  const usual = SHORTCUT_IDS.every((id) => keys[id] === DEFAULT_KEYS[id]);
  return (
    <section className="shortcut-settings" aria-labelledby="shortcut-settings-title">
      <h3 id="shortcut-settings-title">Keyboard shortcuts</h3>
      <label className="inline">
        <input type="checkbox" checked={enabled} onChange={(e) => setKeymap({ enabled: e.target.checked })} /> Single-key shortcuts (a key pressed outside a field acts at once)
      </label>
      <fieldset className="shortcut-keys" disabled={!enabled}>
        <legend>Keys</legend>
        {SHORTCUT_IDS.map((id) => {
          const refused = typed[id] !== undefined ? keyProblem(keys, id, typed[id]) : null;
          return (
            <div key={id} className="shortcut-key">
              <label htmlFor={`shortcut-${id}`}>{SHORTCUT_NAMES[id]}</label>
              <input id={`shortcut-${id}`} value={typed[id] ?? keys[id].toUpperCase()} autoComplete="off" spellCheck={false} size={2}
                aria-invalid={refused !== null} aria-describedby={refused ? `shortcut-${id}-problem` : undefined}
                onFocus={(e) => e.target.select()} onChange={(e) => change(id, e.target.value)} />
              {refused ? <span id={`shortcut-${id}-problem`} className="error" role="alert">{refused}</span> : null}
            </div>
          );
        })}
      </fieldset>
      <div className="buttons">
        <button type="button" disabled={usual && enabled} onClick={() => { setKeymap({ enabled: true, keys: { ...DEFAULT_KEYS } }); setTyped({}); }}>Usual keys</button>
      </div>
    </section>
  );
}
