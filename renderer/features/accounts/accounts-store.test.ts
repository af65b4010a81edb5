import { describe, expect, it } from 'vitest';
import { openPanel } from '../../panels.ts';
import { closeAccounts, useAccounts } from './accounts-store.ts';

describe('the Accounts screen', () => {
  it('opens when another feature asks for it by name (panels.ts), every time it is asked', () => {
    expect(useAccounts.getState().open).toBe(false);
    openPanel('accounts');
    expect(useAccounts.getState().open).toBe(true);
    closeAccounts();
    openPanel('accounts');
    expect(useAccounts.getState().open).toBe(true);
  });
});
