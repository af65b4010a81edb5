// The previews are the service's own numbers: a drawn square's hectares, and a hectare point's square, equal what
// core/ computes for the service; a point above the limit is refused with the service's message.
import { describe, expect, it } from 'vitest';
import { hectareSquare } from '../core/geo/square.ts';
import { polygonHectares } from '../core/geo/area.ts';
import { closeRing, draftHectares, draftProblems, hectaresProblem, parseHectares, pointPreview, type LonLat } from './preview.ts';

describe('previews', () => {
  it('measures a polygon being drawn geodesically, open ring or not, and nothing below three vertices', () => {
    const ring = hectareSquare(-4.78, 37.88, 12)[0]!.slice(0, -1) as LonLat[];
    expect(draftHectares(ring)).toBeCloseTo(12, 6);
    expect(closeRing(ring)).toHaveLength(ring.length + 1);
    expect(draftHectares(ring.slice(0, 2))).toBe(0);
  });

  it("shows a hectare point's square exactly as the service makes it, and refuses it above the limit", () => {
    const ok = pointPreview([11.02, 52.21], 5, 100);
    expect(ok.problems).toEqual([]);
    expect(ok.square).toEqual(hectareSquare(11.02, 52.21, 5));
    expect(polygonHectares(ok.square!)).toBeCloseTo(5, 6);
    const over = pointPreview([11.02, 52.21], 150, 100);
    expect(over.square).toBeNull();
    expect(over.problems.join(' ')).toMatch(/exceeds the account's limit of 100 ha/);
    expect(pointPreview([11.02, 52.21], 0, 100).problems.join(' ')).toMatch(/positive number/);
  });

  it("says why a drawn polygon would be refused (a ring crossing itself), in the service's words", () => {
    const bowTie: LonLat[] = [[-4.78, 37.88], [-4.77, 37.87], [-4.77, 37.88], [-4.78, 37.87]];
    expect(draftProblems(bowTie).join(' ')).toMatch(/crosses or touches itself/);
    expect(draftProblems(hectareSquare(-4.78, 37.88, 12)[0]!.slice(0, -1) as LonLat[])).toEqual([]);
    // Two clicks and the sketch's moving vertex still on the second: a line being drawn, nothing to say yet.
    expect(draftProblems([[-4.78, 37.88], [-4.77, 37.87], [-4.77, 37.87]])).toEqual([]);
    // A bow tie still is, whatever copy of its last vertex the sketch adds.
    expect(draftProblems([...bowTie, bowTie[3]!]).join(' ')).toMatch(/crosses or touches itself/);
    expect(draftProblems(bowTie.slice(0, 2))).toEqual([]);
  });

  it('reads hectares with a decimal comma or point, and nothing else', () => {
    expect([parseHectares('2,5'), parseHectares(' 2.5 '), parseHectares('5'), parseHectares('.5'), parseHectares('3.')]).toEqual([2.5, 2.5, 5, 0.5, 3]);
    for (const bad of ['', '-3', '1.000,5', '1,000.5', '2,5,1', 'abc', '1e3', '5 ha']) expect(parseHectares(bad)).toBeNaN();
  });
});

describe('hectaresProblem', () => {
  it('answers what was typed, not a generic "above 0"', () => {
    expect(hectaresProblem('2,5')).toBeNull();
    expect(hectaresProblem('')).toMatch(/^Type the hectares/);
    expect(hectaresProblem('1e9', 100)).toBe('"1e9" is 1,000,000,000 ha: above the account\'s limit of 100 ha.');
    expect(hectaresProblem('1e-3', 100)).toMatch(/Write the hectares out in full/);
    expect(hectaresProblem('-3')).toMatch(/cannot be negative/);
    expect(hectaresProblem('0')).toMatch(/must be above 0/);
    expect(hectaresProblem('1.000,5')).toMatch(/without thousands separators/);
    expect(hectaresProblem('5 ha')).toBe('"5 ha" is not a number of hectares: type one number above 0, such as 2.5 or 2,5.');
  });
});
