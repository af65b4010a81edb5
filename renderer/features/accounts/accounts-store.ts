// The Accounts screen's state, plain data: whether it is open, the organizations with their accounts as the service
// listed them (read when the screen opens and after each change), and each bearer account's token expiry. Never a
// key or a token: the backend keeps those.
import { create } from 'zustand';
import type { Organization, TokenState } from '../../../core/api.ts';
import type { AppApi } from '../../backend.ts';
import { set as setApp } from '../../store.ts';
import { onPanelAsked } from '../../panels.ts';

export interface AccountsState {
  open: boolean;
  /** null until the first answer (each organization is asked on its service). */
  orgs: Organization[] | null;
  loading: boolean;
  error: string | null;
  tokens: TokenState[];
}

export const useAccounts = create<AccountsState>(() => ({ open: false, orgs: null, loading: false, error: null, tokens: [] }));
export const openAccounts = () => useAccounts.setState({ open: true });
export const closeAccounts = () => useAccounts.setState({ open: false });
export const toggleAccounts = () => useAccounts.setState((s) => ({ open: !s.open }));
// Other features open the Accounts screen by its name (the first run's Connect form does), never through this store.
onPanelAsked('accounts', openAccounts);

const why = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Reads the organizations' accounts from their services again. */
export async function loadOrganizations(api: AppApi): Promise<void> {
  useAccounts.setState({ loading: true });
  try {
    useAccounts.setState({ orgs: await api.organizations({}), error: null });
  } catch (err) {
    useAccounts.setState({ error: `The organizations' accounts could not be read: ${why(err)}` });
  } finally {
    useAccounts.setState({ loading: false });
  }
}

export async function loadTokens(api: AppApi): Promise<void> {
  useAccounts.setState({ tokens: await api.accountTokens({}) });
}

/** After a change of the connected accounts: the app's list, the tokens and (unless told) the organizations again. */
export async function accountsChanged(api: AppApi, orgs = true): Promise<void> {
  const [accounts] = await Promise.all([api.accounts({}), loadTokens(api), orgs ? loadOrganizations(api) : null]);
  setApp({ accounts });
}
