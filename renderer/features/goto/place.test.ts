import { describe, expect, it } from 'vitest';
import { placeInCrs } from './place.ts';

// Against cs2cs: test/coordinates-cs2cs.test.ts (the page's code runs no programs).
describe('placing refuses what its projection cannot place', () => {
  it('says so, naming the CRS', () => {
    const r = placeInCrs({ code: 25830, name: 'ETRS89 / UTM zone 30N', proj4: '+proj=utm +zone=30 +ellps=GRS80 +units=m +no_defs', byGrid: false }, 4145678, 1e12);
    expect('error' in r ? r.error : r.pos.join()).toMatch(/outside what EPSG:25830 \(ETRS89 \/ UTM zone 30N\) can place/);
  });
});
