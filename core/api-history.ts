// The app's backend contract, the edit history: what undo and redo would do, and doing it, per account and across
// restarts. Part of API (core/api.ts).
import { Type } from '@sinclair/typebox';
import { PAGE_AND_CLI, type Contract } from './rpc.ts';
import { AnyAccount, Obj } from './api-schemas.ts';

export const HISTORY_API = {
  history: {
    callers: PAGE_AND_CLI, description: "What undo and redo would do in an account (or in any)",
    args: AnyAccount, result: Obj({ undo: Type.Union([Type.String(), Type.Null()]), redo: Type.Union([Type.String(), Type.Null()]) }),
  },
  undo: { callers: PAGE_AND_CLI, description: "Undoes the account's last edit (or the last of any); its label, or null when there is none", args: AnyAccount, result: Type.Union([Type.String(), Type.Null()]) },
  redo: { callers: PAGE_AND_CLI, description: "Redoes the account's last undone edit (or the last of any)", args: AnyAccount, result: Type.Union([Type.String(), Type.Null()]) },
} satisfies Contract;
