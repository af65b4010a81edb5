import type { Database } from 'better-sqlite3';

// `plants_rtree`: plants by where they stand, for the map's view (the pull brings tens of thousands of detected
// trees per orchard; scanning them for every pan was the cost). Each plant's box covers its point and its crown
// (the outer ring of `shape`, stored as the service's Polygon), so a view that meets only the edge of a crown
// still finds its tree. Keyed by the plant's rowid, kept in step by triggers as parcels_rtree is, so every writer
// (the pull's upsert that skips equal rows, the cascade of a removed account) is covered; plants pulled under
// version 5 are indexed here. The R*Tree stores 32-bit floats, rounded outwards: a box never shrinks.
const BOX = (row: string) => {
  const ring = (coord: 0 | 1, fn: 'min' | 'max') =>
    `${fn}(json_extract(${row}.point, '$[${coord}]'), COALESCE((SELECT ${fn}(json_extract(value, '$[${coord}]')) FROM json_each(${row}.shape, '$.coordinates[0]')), json_extract(${row}.point, '$[${coord}]')))`;
  return `${ring(0, 'min')}, ${ring(0, 'max')}, ${ring(1, 'min')}, ${ring(1, 'max')}`;
};

export function up(db: Database): void {
  db.exec(`
    CREATE VIRTUAL TABLE plants_rtree USING rtree(id, minx, maxx, miny, maxy);
    CREATE TRIGGER plants_ai AFTER INSERT ON plants BEGIN
      INSERT INTO plants_rtree (id, minx, maxx, miny, maxy) VALUES (new.rowid, ${BOX('new')});
    END;
    CREATE TRIGGER plants_au AFTER UPDATE OF point, shape ON plants BEGIN
      DELETE FROM plants_rtree WHERE id = old.rowid;
      INSERT INTO plants_rtree (id, minx, maxx, miny, maxy) VALUES (new.rowid, ${BOX('new')});
    END;
    CREATE TRIGGER plants_ad AFTER DELETE ON plants BEGIN
      DELETE FROM plants_rtree WHERE id = old.rowid;
    END;
    INSERT INTO plants_rtree (id, minx, maxx, miny, maxy) SELECT p.rowid, ${BOX('p')} FROM plants p;
  `);
}
