// What every panel and dialog over the page does with the keyboard's focus (settings, accounts, sync details, the
// keyboard help, the rotation table, the import preview, the delete and deactivate confirmations): it takes the focus
// when it opens, so that a screen reader reads it and the keys go to it; Esc closes it; and on closing the focus goes
// back to its opener (the control focused before, else the panel's own toolbar or status-line button when a shortcut
// opened it from the page), never to the page's body. A modal one also keeps the focus inside (Tab cycles, the rest of
// the page inert, so Tab never reaches the controls hidden behind it) and holds the window's shortcuts while open.
import { useEffect, useRef, type RefObject } from 'react';
import { useModals } from '../../keymap.ts';

export interface DialogFocus {
  /** Modal (default): focus kept inside, the rest inert, shortcuts held. The import preview is not: the map beside it stays usable. */
  modal?: boolean;
  /** The panel's own opener, for when it was opened by a shortcut with nothing focused, or is gone or disabled now
   * (a CSS selector; several separated by commas: the first that can take the focus). */
  opener?: string;
  /** The control to focus first (the delete confirmation's Cancel); else the panel itself. */
  initial?: RefObject<HTMLElement | null>;
  /** Whether it is open now, for a dialog that stays mounted (default: open while mounted). */
  open?: boolean;
}

const FOCUSABLE = 'a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"])';

/** Inside a closed <details> but not its summary: laid out (Chromium hides it with content-visibility), yet no Tab stop. */
function inClosedDetails(el: HTMLElement): boolean {
  const details = el.closest('details:not([open])');
  return details !== null && !(el.tagName === 'SUMMARY' && el.parentElement === details);
}

/** The controls Tab stops at inside `root`, in order. */
export function tabStops(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => !(el as HTMLButtonElement).disabled && el.tabIndex >= 0
    && !el.closest('[inert], [hidden]') && !inClosedDetails(el) && el.getClientRects().length > 0 && !(el instanceof HTMLInputElement && el.type === 'hidden'));
}

/** Whether the focus can go back to `el`: still there, enabled, not inert or hidden. */
const focusable = (el: HTMLElement) => el.isConnected && !(el as HTMLButtonElement).disabled && !el.closest('[inert], [hidden]');

/** Makes everything but `panel` (and what holds it) inert; returns what it changed, to be given back. */
function inertAround(panel: HTMLElement): HTMLElement[] {
  const changed: HTMLElement[] = [];
  for (let node: HTMLElement | null = panel; node && node !== document.body; node = node.parentElement) {
    for (const sibling of node.parentElement?.children ?? []) {
      if (sibling === node || !(sibling instanceof HTMLElement) || sibling.inert || sibling instanceof HTMLScriptElement) continue;
      sibling.inert = true;
      changed.push(sibling);
    }
  }
  return changed;
}

/** A ref for the panel's element; `close` runs on Esc (pressed anywhere while the panel is open). */
export function useDialogFocus<T extends HTMLElement = HTMLElement>(close: () => void, { modal = true, opener, initial, open = true }: DialogFocus = {}) {
  const panel = useRef<T>(null);
  const closing = useRef(close);
  closing.current = close;
  useEffect(() => {
    const el = panel.current;
    if (!open || !el) return;
    const active = document.activeElement;
    const before = active instanceof HTMLElement && active !== document.body && !el.contains(active) ? active : null;
    const dialog = el instanceof HTMLDialogElement ? el : null;
    // A native <dialog> is made modal by the browser (its keys are its own); a panel by making the rest inert.
    if (dialog && !dialog.open) dialog.showModal();
    const inerted = modal && !dialog ? inertAround(el) : [];
    if (modal) useModals.setState((s) => ({ open: s.open + 1 }));
    (initial?.current ?? el).focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') { e.preventDefault(); closing.current(); return; }
      if (e.key !== 'Tab' || !modal) return;
      // Tab cycles: from the last control to the first (Shift+Tab the other way), and never out to the browser's own UI.
      const stops = tabStops(el);
      if (!stops.length) { e.preventDefault(); return; }
      const i = stops.indexOf(document.activeElement as HTMLElement);
      const last = stops.length - 1;
      if (i === -1 || (e.shiftKey ? i === 0 : i === last)) {
        e.preventDefault();
        stops[e.shiftKey ? last : 0]!.focus();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      if (dialog?.open) dialog.close();
      for (const x of inerted) x.inert = false;
      if (modal) useModals.setState((s) => ({ open: Math.max(0, s.open - 1) }));
      // Back to the opener, unless closing put the focus somewhere on purpose (Show a parcel, another panel).
      const now = document.activeElement;
      if (now && now !== document.body && !el.contains(now)) return;
      const candidates = [before, ...(opener ? document.querySelectorAll<HTMLElement>(opener) : [])];
      candidates.find((c) => c && focusable(c))?.focus();
    };
    // `initial`, `opener` and `modal` are fixed for a panel's life.
  }, [open]);
  return panel;
}
