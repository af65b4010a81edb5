// Opening a panel by its name, as plain data: a feature that offers the way into another feature's panel (the first
// run's "Add its API key in Accounts") asks here instead of importing that feature, and the panel's own feature
// follows the request. So features import only what sits below them (core/, these shared modules, their own folder).
import { create } from 'zustand';

/** The panels another feature may open (a name is added when a feature needs one). */
export type PanelName = 'accounts' | 'create-farm';

/** The last request, numbered (`n`): the same panel asked for twice is two requests (it may be closed between). */
export const usePanels = create<{ asked: { panel: PanelName; n: number } | null }>(() => ({ asked: null }));

export const openPanel = (panel: PanelName) => usePanels.setState((s) => ({ asked: { panel, n: (s.asked?.n ?? 0) + 1 } }));

/** Runs `open` at every request for `panel`, for the feature that owns it; returns the unsubscribe. */
export const onPanelAsked = (panel: PanelName, open: () => void): (() => void) =>
  usePanels.subscribe((s, prev) => { if (s.asked !== prev.asked && s.asked?.panel === panel) open(); });
