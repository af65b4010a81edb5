// Which parcel creates a push sends, in which batches: batches of ≤ 50 parcels of one farm, a parcel near the
// account's limit alone. Planned a page of the outbox at a time, as the push goes, so that the first request leaves
// without waiting for every op of a large push to be read.
import type { Db } from '../db/open.ts';
import type { SendOp } from '../db/types.ts';
import { parcelCreatesDueAfter, parcelCreatesDueCount } from '../db/outbox.ts';
import { MAX_PARCELS_PER_REQUEST } from '../core/parcels/validate.ts';
import { nearLimit } from './parcels.ts';

/** An op as planned: with its parcel's rowid, by which the row is read when the batch goes. */
export type PlannedOp = SendOp & { rowid: number };
export interface Planned { farmId: number; ops: PlannedOp[] }

/**
 * Ops read per page unless the push asks for another size: 20 full batches. The push reads a page of its mark group's
 * size (pushParcelCreates): reading 1,000 ops in one step held its thread about 3–4 ms every second or third group
 * (20,000 queued squares, the 90th percentile of a take of 8 batches, load 5–7), 1.7–2.2 ms at 400 every group: the
 * same work in all, but no step as long as the ~5 ms the service takes over the request it has waiting.
 */
export const PLAN_PAGE = 1000;

/**
 * The queued first sends of parcel creates in farms the service has, due at `at`. A farm's ops are held until 50 of
 * them make a full batch, or until the outbox has no more: paging changes no batch's size, only when it is planned.
 * Ops queued while the push runs (a later id) are planned too, when their page comes.
 */
export class PushPlan {
  /** How many ops the plan will give: exact once the outbox is read to its end (see `done`). */
  total: number;
  private after = 0;
  private exhausted = false;
  private given = 0;
  private readonly ready: Planned[] = [];
  private readonly held = new Map<number, PlannedOp[]>();

  constructor(private readonly db: Db, private readonly accountId: string, private readonly at: string, private readonly limit: number,
    private readonly page: number = PLAN_PAGE) {
    this.total = parcelCreatesDueCount(db, accountId, at);
  }

  /** Whether every op has been planned and taken. */
  get done(): boolean {
    return this.exhausted && !this.ready.length;
  }

  /** The next `n` batches (fewer at the end). */
  take(n: number): Planned[] {
    while (this.ready.length < n && !this.exhausted) this.readPage();
    const out = this.ready.splice(0, n);
    this.given += out.reduce((s, p) => s + p.ops.length, 0);
    // The count read ahead could differ from what the pages held (an op withdrawn or queued meanwhile): the end says.
    if (this.done) this.total = this.given;
    return out;
  }

  private readPage(): void {
    const page = parcelCreatesDueAfter(this.db, this.accountId, this.at, this.after, this.page);
    if (page.length < this.page) this.exhausted = true;
    for (const { farm_server_id: farmId, hectares, ...op } of page) {
      this.after = op.id;
      // A parcel near the limit goes alone, so a server-side rejection cannot sink a batch.
      if (nearLimit({ hectares }, this.limit)) {
        this.ready.push({ farmId, ops: [op] });
        continue;
      }
      let ops = this.held.get(farmId);
      if (!ops) this.held.set(farmId, ops = []);
      ops.push(op);
      if (ops.length === MAX_PARCELS_PER_REQUEST) {
        this.ready.push({ farmId, ops });
        this.held.delete(farmId);
      }
    }
    if (this.exhausted) {
      for (const [farmId, ops] of this.held) this.ready.push({ farmId, ops });
      this.held.clear();
    }
  }
}
