import type { Migration } from '../../platform/node/migrations.ts';
import { up as m001 } from './001-mirror.ts';
import { up as m002 } from './002-parcel-checked.ts';
import { up as m003 } from './003-outbox-sent-state.ts';
import { up as m004 } from './004-account-blocked-code.ts';
import { up as m005 } from './005-history-account.ts';
import { up as m006 } from './006-plants-rtree.ts';
import { up as m007 } from './007-open-conflicts-index.ts';
import { up as m008 } from './008-open-updates-index.ts';
import { up as m009 } from './009-account-change-cursor.ts';
import { up as m010 } from './010-parcels-rtree-live.ts';
import { up as m011 } from './011-parcel-count-indexes.ts';
import { up as m012 } from './012-account-read-after.ts';
import { up as m013 } from './013-push-batches.ts';
import { up as m014 } from './014-farm-totals.ts';
import { up as m015 } from './015-synced-by-booking.ts';
import { up as m016 } from './016-push-lean-indexes.ts';
import { up as m017 } from './017-id-room.ts';
import { up as m018 } from './018-farm-index-lean.ts';
import { up as m019 } from './019-held-deletions.ts';

/** One entry per schema version: migrations[0] takes user_version 0 to 1. Append only. */
export const migrations: readonly Migration[] = [m001, m002, m003, m004, m005, m006, m007, m008, m009, m010, m011, m012, m013, m014, m015, m016, m017, m018, m019];
