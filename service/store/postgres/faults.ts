// The fault switch's rules in the database (FAULTS=1, tests only: service/faults.ts), for several service processes
// behind a balancer: a test sets a rule once, and it is used once whichever process the request reaches, as with one
// process. Without this a rule sent to every process fired once per process, and which process met a request was
// the balancer's choice.
//
// The table is not part of the schema (no migration): it is created here, only when the switch is on, under a
// transaction-level advisory lock (processes starting at once; a session lock would not survive PgBouncer).
import type { Pool } from 'pg';
import { inTransaction } from './tx.ts';
import { ruleMatches, type FaultBook, type FaultInput, type Rule } from '../../faults.ts';

const TABLE = 'furrow_test_faults';
/** Any number: the advisory lock only keeps two processes from creating the table at once. */
const CREATE_LOCK = 7_340_034;

interface Row { id: number; rule: FaultInput; remaining: number }

export class PgFaults implements FaultBook {
  private constructor(private readonly pool: Pool) {}

  static async open(pool: Pool): Promise<PgFaults> {
    await inTransaction(pool, async (c) => {
      await c.query('SELECT pg_advisory_xact_lock($1)', [CREATE_LOCK]);
      await c.query(`CREATE TABLE IF NOT EXISTS ${TABLE} (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, rule jsonb NOT NULL, remaining int NOT NULL)`);
    });
    return new PgFaults(pool);
  }

  async add(input: FaultInput): Promise<void> {
    await this.pool.query(`INSERT INTO ${TABLE} (rule, remaining) VALUES ($1, $2)`, [JSON.stringify(input), input.count ?? 1]);
  }

  async reset(): Promise<void> {
    await this.pool.query(`DELETE FROM ${TABLE}`);
  }

  async list(): Promise<Rule[]> {
    return (await this.rows()).map((r) => ({ ...r.rule, remaining: r.remaining }));
  }

  /** The first matching rule with a use left, that use taken atomically: another process taking it first means the next. */
  async take(method: string, path: string): Promise<Rule | null> {
    for (;;) {
      const rule = (await this.rows()).find((r) => ruleMatches(r.rule.match, method, path));
      if (!rule) return null;
      const r = await this.pool.query<{ remaining: number }>(`UPDATE ${TABLE} SET remaining = remaining - 1 WHERE id = $1 AND remaining > 0 RETURNING remaining`, [rule.id]);
      if (r.rows[0]) return { ...rule.rule, remaining: r.rows[0].remaining };
    }
  }

  private async rows(): Promise<Row[]> {
    return (await this.pool.query<Row>(`SELECT id, rule, remaining FROM ${TABLE} WHERE remaining > 0 ORDER BY id`)).rows;
  }
}
