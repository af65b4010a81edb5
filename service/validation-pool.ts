import { Worker } from 'node:worker_threads';
import { validateParcels, type ParcelProblem, type ValidParcel } from '../core/parcels/validate.ts';

/** A validated parcel with its JSON columns already serialized (by the worker that validated it). */
export interface PreparedParcel extends Omit<ValidParcel, 'geometry' | 'metadata' | 'center'> {
  geometryJson: string;
  metadataJson: string;
}

export interface Validated { parcels: PreparedParcel[]; problems: ParcelProblem[] }

export function prepareParcels(inputs: readonly unknown[], maxHectares: number): Validated {
  const { parcels, problems } = validateParcels(inputs, { maxHectares });
  if (problems.length) return { parcels: [], problems };
  return {
    parcels: parcels.map((p) => ({
      name: p.name, sourceType: p.sourceType, point: p.point, hectares: p.hectares, bbox: p.bbox,
      geometryJson: JSON.stringify(p.geometry), metadataJson: JSON.stringify(p.metadata),
    })),
    problems,
  };
}

export interface ParcelValidator {
  validate(inputs: readonly unknown[], maxHectares: number): Promise<Validated>;
  close(): Promise<void>;
}

/** Validation on the request's own thread (tests, and machines with one core). */
export const inlineValidator: ParcelValidator = {
  validate: async (inputs, maxHectares) => prepareParcels(inputs, maxHectares),
  close: async () => {},
};

/**
 * Geodesic areas and self-intersection checks are most of a bulk create's CPU. Worker threads take them
 * off the thread that owns SQLite, so on two cores validation of one batch overlaps the insert of another.
 */
export class WorkerValidator implements ParcelValidator {
  private readonly workers: { worker: Worker; busy: number }[] = [];
  private readonly pending = new Map<number, { resolve: (v: Validated) => void; reject: (e: Error) => void }>();
  private next = 1;
  private closed = false;

  constructor(private readonly size: number) {
    // Started with the service: the first batch must not wait for a thread to boot.
    this.start();
  }

  private start(): void {
    for (let i = 0; i < this.size; i++) {
      // The worker is TypeScript like the rest of the service: its .mjs entry loads it through tsx.
      const worker = new Worker(new URL('./validation-worker.mjs', import.meta.url));
      const slot = { worker, busy: 0 };
      worker.on('message', (m: { id: number; result: Validated }) => {
        slot.busy--;
        const p = this.pending.get(m.id);
        this.pending.delete(m.id);
        p?.resolve(m.result);
      });
      // A worker that dies takes its pending batches with it: they are validated inline instead, and the
      // pool starts afresh on the next batch.
      worker.on('error', (err) => this.fail(err));
      worker.on('exit', () => {
        const i = this.workers.indexOf(slot);
        if (i >= 0) this.workers.splice(i, 1);
      });
      worker.unref();
      this.workers.push(slot);
    }
  }

  private fail(err: Error): void {
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  async validate(inputs: readonly unknown[], maxHectares: number): Promise<Validated> {
    if (this.closed) return prepareParcels(inputs, maxHectares);
    if (!this.workers.length) this.start();
    const slot = this.workers.reduce((a, b) => (b.busy < a.busy ? b : a));
    const id = this.next++;
    slot.busy++;
    try {
      return await new Promise<Validated>((resolve, reject) => {
        this.pending.set(id, { resolve, reject });
        slot.worker.postMessage({ id, inputs, maxHectares });
      });
    } catch {
      return prepareParcels(inputs, maxHectares);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.fail(new Error('validation pool closed'));
    await Promise.all(this.workers.map((w) => w.worker.terminate()));
    this.workers.length = 0;
  }
}

export const makeValidator = (workers: number): ParcelValidator => (workers > 0 ? new WorkerValidator(workers) : inlineValidator);
