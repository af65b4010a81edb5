import type { Migration } from '../../../../platform/node/migrations.ts';
import { up as m001 } from './001-initial.ts';
import { up as m002 } from './002-crop-families.ts';
import { up as m003 } from './003-admin.ts';
import { up as m004 } from './004-farm-totals.ts';
import { up as m005 } from './005-token-binding.ts';
import { up as m006 } from './006-batch-farm-totals.ts';
import { up as m007 } from './007-changes.ts';

/** One entry per schema version: migrations[0] takes user_version 0 to 1, and so on. Append only. */
export const migrations: readonly Migration[] = [m001, m002, m003, m004, m005, m006, m007];
