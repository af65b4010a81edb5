import type pg from 'pg';

// The change feed's numbers from one sequence instead of a counter row per account (migration 003's change_seq.seq).
//
// 003's counter row was locked by every committing writer of an account until its commit ended, WAL flush included:
// one account's concurrent batches committed one after the other and never shared a flush (bulk create on
// PostgreSQL ran at about half its speed). Here a writer's commit takes its numbers from a sequence (no lock, no
// wait) and a *shared* advisory lock per account from that moment until its commit ends; writers' shared locks never
// wait for each other.
//
// What the counter's lock gave must still hold: a reader must never hand out a cursor past a number still in flight
// (numbered, not yet committed), or a client would move past it and never see it. A sequence's numbers become
// visible out of order, so the reader first takes the account's advisory lock *exclusively*, for one statement
// (change_feed_top): that waits until every writer of the account that has taken numbers has ended its commit, and
// reads the sequence's latest number N under it. Every number up to N is then committed (or rolled back, never to
// appear); a number taken after is above N. The reader's snapshot, taken after that statement, sees every change up
// to N, and the page it serves stops at N. The writers that wait are those committing while the reader holds the
// lock, for one statement; a transaction still running (a long batch) holds no lock until it commits, so nobody waits
// for it: it numbers its changes at commit, above every cursor handed out before.
//
// A transaction writing to several accounts (a crop moved between accounts) takes their shared locks in one
// statement in key order: with readers holding at most one lock and waiting for nothing else, no cycle can form.
//
// Existing cursors stay valid: the sequence starts above every number any account's counter has handed out.
export async function up(client: pg.ClientBase): Promise<void> {
  await client.query(`
    CREATE SEQUENCE change_feed_seq AS bigint;
    SELECT setval('change_feed_seq', GREATEST(1, (SELECT MAX(seq) FROM change_seq), (SELECT MAX(seq) FROM changes)),
      (SELECT MAX(seq) FROM change_seq) IS NOT NULL OR (SELECT MAX(seq) FROM changes) IS NOT NULL);
    -- change_seq keeps only what pruning moves (rarely); no writer touches it any more.
    ALTER TABLE change_seq DROP COLUMN seq;

    -- The advisory lock's key of an account's feed: the two-integer form, a space of its own (the migration lock is a
    -- bigint key).
    CREATE FUNCTION change_feed_key(acc text) RETURNS integer LANGUAGE sql IMMUTABLE AS $$ SELECT hashtext(acc) $$;

    -- At commit: the transaction's unnumbered rows of the account take numbers from the sequence, under the shared
    -- locks of every account the transaction recorded changes for (all at the first, in key order).
    CREATE OR REPLACE FUNCTION number_changes() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_advisory_xact_lock_shared(4201, k)
        FROM (SELECT DISTINCT change_feed_key(account_id) AS k FROM change_marks WHERE tx = NEW.tx ORDER BY 1) keys;
      DELETE FROM change_marks WHERE tx = NEW.tx AND account_id = NEW.account_id;
      UPDATE changes c SET seq = nextval('change_feed_seq')
        FROM (SELECT entity, id FROM changes WHERE account_id = NEW.account_id AND seq IS NULL ORDER BY entity, id) o
        WHERE c.account_id = NEW.account_id AND c.entity = o.entity AND c.id = o.id;
      RETURN NULL;
    END $$;

    -- For a reader, before its snapshot: waits for the account's writers that have taken numbers to end their commits,
    -- then answers the latest number taken (0: none yet). The lock goes with the statement's own transaction.
    CREATE FUNCTION change_feed_top(acc text) RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
    DECLARE
      top bigint;
      called boolean;
    BEGIN
      PERFORM pg_advisory_xact_lock(4201, change_feed_key(acc));
      SELECT last_value, is_called INTO top, called FROM change_feed_seq;
      RETURN CASE WHEN called THEN top ELSE top - 1 END;
    END $$;
  `);
}
