// The keyboard's help: every shortcut of the app (shortcuts.ts), opened with ? or F1 or the toolbar's ? button, closed
// with Esc. A dialog that takes the focus, so a screen reader reads it at once.
import { create } from 'zustand';
import { SHORTCUTS, currentKeys, keyLabel } from './shortcuts.ts';
import { useKeyName, useKeymap } from '../../keymap.ts';
import { useDialogFocus } from '../focus/useDialogFocus.ts';
import './help.css';

export const useHelp = create<{ open: boolean }>(() => ({ open: false }));
export const toggleHelp = () => useHelp.setState((s) => ({ open: !s.open }));

export function HelpButton() {
  const open = useHelp((s) => s.open);
  const key = useKeyName('help');
  return (
    <button type="button" className="help-button" aria-label="Keyboard shortcuts" aria-keyshortcuts={key ? `${key === '?' ? 'Shift+?' : key} F1` : 'F1'}
      title={`Keyboard shortcuts (${key ? `${key} or ` : ''}F1)`} aria-pressed={open} onClick={toggleHelp}>?</button>
  );
}

export function HelpPanel() {
  const panel = useDialogFocus(() => useHelp.setState({ open: false }), { opener: '.help-button' });
  const keymap = useKeymap();
  return (
    <section className="help" role="dialog" aria-label="Keyboard shortcuts" tabIndex={-1} ref={panel}>
      <div className="help-head">
        <h2>Keyboard shortcuts</h2>
        <button type="button" aria-label="Close the keyboard shortcuts" title="Close (Esc)" onClick={() => useHelp.setState({ open: false })}>✕</button>
      </div>
      <p className="muted">{keymap.enabled ? 'Single keys work anywhere but in a field you are typing in or behind a panel; Esc leaves the field first.' : 'Single-key shortcuts are off.'} Settings (Ctrl+,) turns them off or changes them.</p>
      {SHORTCUTS.map((g) => (
        <section key={g.group}>
          <h3>{g.group}</h3>
          <dl>
            {g.items.map((i) => ({ i, keys: currentKeys(i, keymap) })).filter(({ keys }) => keys.length).map(({ i, keys }) => (
              <div key={i.keys} className="shortcut">
                <dt>{keys.map((k, n) => <span key={k}>{n ? ' or ' : ''}<kbd>{keyLabel(k)}</kbd></span>)}</dt>
                <dd>{i.what}</dd>
              </div>
            ))}
          </dl>
        </section>
      ))}
    </section>
  );
}
