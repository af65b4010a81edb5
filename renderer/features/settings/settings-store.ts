// The settings panel's own state, plain data: whether it is open, and whether the accounts were read once (the app
// opens on the Connect form, not on an empty map, only once it knows there is none). Secrets never come here.
import { create } from 'zustand';

export interface SettingsState {
  open: boolean;
  /** The host's accounts have been read at least once since the page loaded. */
  loaded: boolean;
}

export const useSettings = create<SettingsState>(() => ({ open: false, loaded: false }));
export const openSettings = () => useSettings.setState({ open: true });
export const closeSettings = () => useSettings.setState({ open: false });
export const toggleSettings = () => useSettings.setState((s) => ({ open: !s.open }));
