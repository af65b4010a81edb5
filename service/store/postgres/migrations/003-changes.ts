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
// Lock order: the counter is the last lock a writer takes. The change triggers are named record_changes_* and fire
// after the farm_totals_* triggers (PostgreSQL fires a table's triggers by name), so a parcel's delete locks its farm
// before the counter, as a bulk create does; a farm's BEFORE DELETE trigger runs with the farm row already locked.
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
      seq bigint NOT NULL,
      deleted boolean NOT NULL,
      at bigint NOT NULL,
      PRIMARY KEY (account_id, entity, id)
    );
    CREATE UNIQUE INDEX changes_feed ON changes (account_id, seq);
    CREATE INDEX changes_tombstones ON changes (account_id, at) WHERE deleted;

    -- Records the objects ids of entity as changed (or deleted) for account acc; ids distinct, NULL account: nothing.
    CREATE FUNCTION record_changes(acc text, ent text, ids bigint[], del boolean) RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      n integer := coalesce(cardinality(ids), 0);
      top bigint;
    BEGIN
      -- An account being deleted cascades into its farms (set to orphans), crops and plants: its feed goes with it.
      IF acc IS NULL OR n = 0 OR NOT EXISTS (SELECT 1 FROM accounts WHERE id = acc) THEN RETURN; END IF;
      INSERT INTO change_seq AS s (account_id, seq) VALUES (acc, n)
        ON CONFLICT (account_id) DO UPDATE SET seq = s.seq + n RETURNING s.seq INTO top;
      INSERT INTO changes (account_id, entity, id, seq, deleted, at)
        SELECT acc, ent, u.id, top - n + u.ord, del, extract(epoch FROM clock_timestamp())::bigint
        FROM unnest(ids) WITH ORDINALITY AS u(id, ord)
        ON CONFLICT (account_id, entity, id) DO UPDATE SET seq = excluded.seq, deleted = excluded.deleted, at = excluded.at;
    END $$;

    CREATE FUNCTION changes_farm() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND OLD.account_id IS DISTINCT FROM NEW.account_id) THEN
        -- Deleted or unlinked: gone from its account with its parcels (their crops and plants record themselves on
        -- a delete; on an unlink they stay, so they are recorded here).
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
