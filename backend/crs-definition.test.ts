// The page's EPSG definitions (go to coordinate), read from the real epsg-index package.
import { describe, expect, it } from 'vitest';
import { RpcError } from '../core/rpc.ts';
import { crsDefinition } from './crs-definition.ts';

describe('crsDefinition', () => {
  it("answers a projected CRS's name and proj4 definition", () => {
    const d = crsDefinition(25830);
    expect(d).toMatchObject({ code: 25830, name: 'ETRS89 / UTM zone 30N', byGrid: false });
    expect(d.proj4).toMatch(/\+proj=utm \+zone=30 .*\+ellps=GRS80/);
  });

  it('makes a grid shift optional, and says so', () => {
    const d = crsDefinition(31467); // DHDN / 3-degree Gauss-Kruger zone 3: BETA2007.gsb
    expect(d.proj4).toMatch(/\+nadgrids=@/);
    expect(d.byGrid).toBe(true);
  });

  it('refuses a code without a definition, and a vertical CRS, with invalid_crs', () => {
    const refused = (code: number) => { try { crsDefinition(code); return null; } catch (e) { return e instanceof RpcError ? [e.code, e.message] : String(e); } };
    expect(refused(12345)).toEqual(['invalid_crs', expect.stringContaining('Furrow has no definition of EPSG:12345')]);
    expect(refused(5703)).toEqual(['invalid_crs', expect.stringContaining('EPSG:5703 is a vertical coordinate system')]);
  });
});
