import type pg from 'pg';

// The change feed (GET /api/changes/), as SQLite's migration 007: one row per object an account has seen change,
// with the account's number of its latest change, tombstones for deletions, recorded by triggers so that cascades
// and admin operations are recorded too (parcels' inserts excepted: insertParcels records a batch in one call).
//
// The numbers must be taken in commit order, or a reader could see number 11 committed while 10 is still in flight,
// move its cursor past 10 and never see it. A sequence gives no such order. Here every account has a counter row,
// moved by `INSERT … ON CONFLICT DO UPDATE … RETURNING`: its row lock is held until the writer's transaction ends,
// so the next writer of that account takes its numbers only after the previous one committed (or rolled back and
// gave its numbers back), and a reader whose snapshot shows the counter at N sees every change up to N.
//
// When: at commit, not at the change. The triggers write their rows without a number (seq NULL, invisible to
// readers until committed anyway) and mark the transaction (change_marks); a deferred constraint trigger on the mark
// numbers the transaction's rows when it commits. So the counter is the last lock every writer takes, after every
// row it touches: taken at the change instead, a parcel's delete would hold the counter (its crops' tombstones,
// through the cascade) while waiting for its farm's row, which a bulk create into that farm holds while waiting for
// the counter, a deadlock. Waiting for the counter, a transaction holds only rows nobody numbering needs.
//
// Row locks before change rows: each trigger records an object after its own row is written (so locked), and a
// farm's delete locks its parcels before recording their tombstones, so two writers meet on the object's row first.
export async function up(client: pg.ClientBase): Promise<void> {
  await client.query(`
    CREATE TABLE change_seq (
      account_id text PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
      seq bigint NOT NULL,
      pruned_seq bigint NOT NULL DEFAULT 0
    );
    CREATE TABLE changes (
      account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      entity text NOT NULL CHECK (entity IN ('farm', 'parcel', 'crop', 'plant')),
      id bigint NOT NULL,
      seq bigint,
      deleted boolean NOT NULL,
      at bigint NOT NULL,
      PRIMARY KEY (account_id, entity, id)
    );
    CREATE UNIQUE INDEX changes_feed ON changes (account_id, seq);
    CREATE INDEX changes_pending ON changes (account_id) WHERE seq IS NULL;
    CREATE INDEX changes_tombstones ON changes (account_id, at) WHERE deleted;
    -- One row per writing transaction and account, while it is in flight.
    CREATE TABLE change_marks (
      tx bigint NOT NULL,
      account_id text NOT NULL,
      PRIMARY KEY (tx, account_id)
    );

    -- Records the objects ids of entity as changed (or deleted) for account acc, numbered at commit; NULL account:
    -- nothing. An account being deleted cascades into its farms (set to orphans), crops and plants: its feed goes with it.
    CREATE FUNCTION record_changes(acc text, ent text, ids bigint[], del boolean) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      IF acc IS NULL OR coalesce(cardinality(ids), 0) = 0 OR NOT EXISTS (SELECT 1 FROM accounts WHERE id = acc) THEN RETURN; END IF;
      INSERT INTO changes (account_id, entity, id, seq, deleted, at)
        SELECT acc, ent, u.id, NULL, del, extract(epoch FROM clock_timestamp())::bigint FROM unnest(ids) AS u(id)
        ON CONFLICT (account_id, entity, id) DO UPDATE SET seq = NULL, deleted = excluded.deleted, at = excluded.at;
      INSERT INTO change_marks (tx, account_id) VALUES (txid_current(), acc) ON CONFLICT DO NOTHING;
    END $$;

    -- At commit: the transaction's rows of the account take the counter's next numbers (in entity, id order).
    CREATE FUNCTION number_changes() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      n bigint;
      top bigint;
    BEGIN
      DELETE FROM change_marks WHERE tx = NEW.tx AND account_id = NEW.account_id;
      SELECT count(*) INTO n FROM changes WHERE account_id = NEW.account_id AND seq IS NULL;
      IF n = 0 THEN RETURN NULL; END IF;
      INSERT INTO change_seq AS s (account_id, seq) VALUES (NEW.account_id, n)
        ON CONFLICT (account_id) DO UPDATE SET seq = s.seq + n RETURNING s.seq INTO top;
      UPDATE changes c SET seq = top - n + o.ord
        FROM (SELECT entity, id, row_number() OVER (ORDER BY entity, id) AS ord FROM changes
          WHERE account_id = NEW.account_id AND seq IS NULL) o
        WHERE c.account_id = NEW.account_id AND c.entity = o.entity AND c.id = o.id;
      RETURN NULL;
    END $$;
    CREATE CONSTRAINT TRIGGER number_changes AFTER INSERT ON change_marks DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW EXECUTE FUNCTION number_changes();

    CREATE FUNCTION changes_farm() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND OLD.account_id IS DISTINCT FROM NEW.account_id) THEN
        -- Deleted or unlinked: gone from its account with its parcels (their crops and plants record themselves on
        -- a delete; on an unlink they stay, so they are recorded here). A delete locks the parcels its cascade will
        -- delete before recording them (the row before its change row, see the header).
        IF TG_OP = 'DELETE' THEN
          PERFORM 1 FROM parcels WHERE organization_id = OLD.organization_id AND farm_id = OLD.id FOR UPDATE;
        END IF;
        PERFORM record_changes(OLD.account_id, 'farm', ARRAY[OLD.id], true);
        PERFORM record_changes(OLD.account_id, 'parcel',
          (SELECT array_agg(id ORDER BY id) FROM parcels WHERE organization_id = OLD.organization_id AND farm_id = OLD.id), true);
        IF TG_OP = 'UPDATE' THEN
          PERFORM record_changes(OLD.account_id, 'crop', (SELECT array_agg(c.id ORDER BY c.id) FROM crops c
            WHERE c.parcel_id IN (SELECT id FROM parcels WHERE organization_id = OLD.organization_id AND farm_id = OLD.id)), true);
          PERFORM record_changes(OLD.account_id, 'plant', (SELECT array_agg(pl.id ORDER BY pl.id) FROM plants pl
            WHERE pl.parcel_id IN (SELECT id FROM parcels WHERE organization_id = OLD.organization_id AND farm_id = OLD.id)), true);
        END IF;
      END IF;
      IF TG_OP <> 'DELETE' THEN
        PERFORM record_changes(NEW.account_id, 'farm', ARRAY[NEW.id], false);
        RETURN NEW;
      END IF;
      RETURN OLD;
    END $$;
    CREATE TRIGGER record_changes_farm_write AFTER INSERT OR UPDATE ON farms FOR EACH ROW EXECUTE FUNCTION changes_farm();
    CREATE TRIGGER record_changes_farm_delete BEFORE DELETE ON farms FOR EACH ROW EXECUTE FUNCTION changes_farm();

    -- A parcel's account is its farm's; in a farm's delete the farm is already gone and its trigger recorded them.
    CREATE FUNCTION changes_parcel() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      old_acc text;
      new_acc text;
    BEGIN
      IF TG_OP <> 'INSERT' THEN
        SELECT account_id INTO old_acc FROM farms WHERE organization_id = OLD.organization_id AND id = OLD.farm_id;
      END IF;
      IF TG_OP <> 'DELETE' THEN
        SELECT account_id INTO new_acc FROM farms WHERE organization_id = NEW.organization_id AND id = NEW.farm_id;
        PERFORM record_changes(new_acc, 'parcel', ARRAY[NEW.id], false);
      END IF;
      IF old_acc IS DISTINCT FROM new_acc THEN
        PERFORM record_changes(old_acc, 'parcel', ARRAY[OLD.id], true);
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER record_changes_parcel AFTER UPDATE OR DELETE ON parcels FOR EACH ROW EXECUTE FUNCTION changes_parcel();

    -- Crops and plants carry their account.
    CREATE FUNCTION changes_own_account() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'DELETE' THEN
        PERFORM record_changes(NEW.account_id, TG_ARGV[0], ARRAY[NEW.id], false);
      END IF;
      IF TG_OP = 'DELETE' OR OLD.account_id IS DISTINCT FROM NEW.account_id THEN
        PERFORM record_changes(OLD.account_id, TG_ARGV[0], ARRAY[OLD.id], true);
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER record_changes_crop AFTER INSERT OR UPDATE OR DELETE ON crops FOR EACH ROW EXECUTE FUNCTION changes_own_account('crop');
    CREATE TRIGGER record_changes_plant AFTER INSERT OR UPDATE OR DELETE ON plants FOR EACH ROW EXECUTE FUNCTION changes_own_account('plant');
  `);
}
