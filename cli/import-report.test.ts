// The import's words reach a terminal: text from the file (a .prj, a feature's name) never carries raw control
// characters there, and a file of a million bad features prints a hundred lines and a count.
import { describe, expect, it } from 'vitest';
import { importErrorLines, importReportLines, printable } from './import-report.ts';

describe('import messages on a terminal', () => {
  it('escape control characters from the file, keep ordinary text and line breaks of the message', () => {
    const prj = 'PROJCS["\u001b[2J\u001b[31mowned\u0007",GEOGCS["x"]]';
    const lines = importErrorLines(`Unsupported CRS in fields.prj: ${prj}\nConvert it first.`, {
      code: 'projection', problems: [{ feature: 0, message: 'feature "a\u0000b\u2028c" is not a polygon' }], problemCount: 1, counts: null,
    });
    const all = lines.join('\n');
    // eslint-disable-next-line no-control-regex -- finding control characters is the point
    expect(all).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/);
    expect(all).toContain('\\u001b[2J\\u001b[31mowned\\u0007');
    expect(all).toContain('a\\u0000b\\u2028c');
    expect(lines[1]).toBe('Convert it first.');
    expect(printable('Campo Señor Ñandú — 12 ha')).toBe('Campo Señor Ñandú — 12 ha');
  });

  it('list at most 100 problems, then count the rest', () => {
    const problems = Array.from({ length: 1_000 }, (_, i) => ({ feature: i, message: `feature ${i} is broken` }));
    const lines = importErrorLines('Nothing was imported: 1000 invalid feature(s)', { code: 'invalid_features', problems, problemCount: 1_000, counts: null });
    expect(lines).toHaveLength(102);
    expect(lines.at(-1)).toBe('  … and 900 more problem(s)');
  });

  it('say the coordinate system a file was reprojected from, and nothing of a WGS84 one', () => {
    const summary = { farm: 'f', farmName: 'Parcelas', imported: 4, parts: 0, duplicates: 0, skipped: 0, problems: [], problemCount: 0, notes: [] };
    const crs = { code: 23030, name: 'ED50 / UTM zone 30N', reprojected: true, shift: 'helmert' as const, grid: null, accuracy: 10 };
    expect(importReportLines({ ...summary, crs })).toEqual([
      "Imported 4 parcel(s) into 'Parcelas'.",
      '  from EPSG:23030 · ED50 / UTM zone 30N, reprojected to WGS84 (datum shifted with published Helmert parameters, accurate to about 10 m)',
    ]);
    expect(importReportLines({ ...summary, crs: { ...crs, code: 4326, name: 'WGS 84', reprojected: false, shift: 'none', accuracy: null } })).toEqual(["Imported 4 parcel(s) into 'Parcelas'."]);
  });
});
