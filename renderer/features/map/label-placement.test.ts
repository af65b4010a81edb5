import { describe, expect, it } from 'vitest';
import { placeLabels, type Box, type LabelParcel, type Placement, type Pt } from './label-placement.ts';

/** A monospace measure: 0.6 of the size a character. */
const measure = (text: string, size: number) => text.length * size * 0.6;
const opts = { width: 800, height: 600, measure };

const rect = (x0: number, y0: number, x1: number, y1: number): Pt[][] => [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]];
const parcel = (id: string, polygon: Pt[][], text = id, bold = false): LabelParcel => ({ id, text, polygons: [polygon], bold });

const overlaps = (a: Box, b: Box) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
function expectTidy(placed: Placement[], width = opts.width, height = opts.height) {
  for (const p of placed) {
    expect(p.box[0], p.id).toBeGreaterThanOrEqual(0);
    expect(p.box[1], p.id).toBeGreaterThanOrEqual(0);
    expect(p.box[2], p.id).toBeLessThanOrEqual(width);
    expect(p.box[3], p.id).toBeLessThanOrEqual(height);
  }
  for (const [i, a] of placed.entries()) for (const b of placed.slice(i + 1)) expect(overlaps(a.box, b.box), `${a.id} over ${b.id}`).toBe(false);
}

describe('parcel label placement', () => {
  it('puts a name that fits in the middle of its shape, at the full size', () => {
    const [p] = placeLabels([parcel('North block', rect(100, 100, 300, 200))], opts);
    expect(p).toMatchObject({ id: 'North block', kind: 'inside', size: 12, leader: null, at: [200, 150] });
  });

  it('takes the smaller size where only it fits inside', () => {
    // 'Olivar G' is 57.6 px wide at 12 px and 48 at 10: a shape 54 px wide takes the smaller.
    const [p] = placeLabels([parcel('Olivar G', rect(100, 100, 154, 160))], opts);
    expect(p).toMatchObject({ kind: 'small', size: 10 });
    expect(p!.box[0]).toBeGreaterThan(100 - 4);
  });

  it('puts a name wider than its shape beside it, off the shape, with a short leader from its box to the shape', () => {
    const shape = rect(300, 300, 320, 320);
    const [p] = placeLabels([parcel('Trial plot', shape)], opts);
    expect(p!.kind).toBe('beside');
    expect(overlaps(p!.box, [300, 300, 320, 320])).toBe(false);
    const [from, to] = p!.leader!;
    // It ends on the shape's outline and starts on the name's box, the gap between them long.
    expect(to[0]).toBeGreaterThanOrEqual(300); expect(to[0]).toBeLessThanOrEqual(320);
    expect(to[1]).toBeGreaterThanOrEqual(300); expect(to[1]).toBeLessThanOrEqual(320);
    expect(from[0]).toBeGreaterThanOrEqual(p!.box[0]); expect(from[0]).toBeLessThanOrEqual(p!.box[2]);
    expect(from[1]).toBeGreaterThanOrEqual(p!.box[1]); expect(from[1]).toBeLessThanOrEqual(p!.box[3]);
    expect(Math.hypot(to[0] - from[0], to[1] - from[1])).toBeLessThanOrEqual(6.01);
  });

  it('keeps the leader short when the name goes below the end of a tall sliver of a shape at the map\'s edge', () => {
    // A field mostly beyond the top and right edges, 8 px of it showing down to y = 330; a wide neighbour takes the
    // room at its left, so its name goes below it.
    const sliver = parcel('Sonnenfeld D', rect(790, -500, 1500, 330));
    const neighbour = parcel('Sonnenfeld C', rect(100, 0, 780, 340));
    const p = placeLabels([neighbour, sliver], opts).find((x) => x.id === 'Sonnenfeld D')!;
    expect(p.kind).toBe('beside');
    const [from, to] = p.leader!;
    expect(Math.hypot(to[0] - from[0], to[1] - from[1])).toBeLessThan(30);
  });

  it('keeps a name inside a concave shape, never across its notch', () => {
    // A U: two arms 40 px wide joined at the bottom; the middle of its box is the notch.
    const u: Pt[][] = [[[100, 100], [140, 100], [140, 260], [260, 260], [260, 100], [300, 100], [300, 300], [100, 300], [100, 100]]];
    const [p] = placeLabels([parcel('Long name here', u)], opts);
    expect(p!.kind).toBe('inside');
    expect(p!.at[1]).toBeGreaterThan(260);
  });

  it('names a parcel cut by the map\'s edge inside its visible part, within the map', () => {
    const [p] = placeLabels([parcel('Edge field', rect(700, 250, 1100, 350))], opts);
    expect(p!.kind).toBe('inside');
    expect(p!.box[2]).toBeLessThanOrEqual(800);
    expectTidy([p!]);
  });

  it('keeps a name beside a shape at the map\'s edge within the map', () => {
    const [p] = placeLabels([parcel('Corner plot', rect(785, 5, 798, 18))], opts);
    expect(p!.kind).toBe('beside');
    expectTidy([p!]);
  });

  it('puts the name of a shape mostly out of view beside the part that shows, with a short leader', () => {
    // 12 px of a long field show at the right edge, its middle 700 px beyond it.
    const [p] = placeLabels([parcel('Long field beyond the edge', rect(788, 100, 1500, 400))], opts);
    expect(p!.kind).toBe('beside');
    expectTidy([p!]);
    const [from, to] = p!.leader!;
    expect(to[0]).toBeGreaterThanOrEqual(788);
    expect(Math.hypot(to[0] - from[0], to[1] - from[1])).toBeLessThan(40);
  });

  it('keeps names off what covers the map', () => {
    const legend: Box = [0, 400, 200, 600];
    const [p] = placeLabels([parcel('Under the legend', rect(20, 380, 400, 590))], { ...opts, obstacles: [legend] });
    expect(overlaps(p!.box, legend)).toBe(false);
  });

  it('names every one of a row of small parcels, none over another', () => {
    const row = Array.from({ length: 10 }, (_, i) => parcel(`Plot ${i + 1}`, rect(100 + i * 60, 300, 120 + i * 60, 320)));
    const placed = placeLabels(row, opts);
    expect(placed.map((p) => p.id).sort()).toEqual(row.map((p) => p.id).sort());
    expectTidy(placed);
  });

  it('leaves a name out rather than over another name or parcel when there is no room, and places the selected one first', () => {
    // Forty tiny parcels packed in 80 × 80 px: not all names can go around them.
    const cell = (i: number): Box => [380 + (i % 8) * 10, 260 + Math.floor(i / 8) * 16, 388 + (i % 8) * 10, 272 + Math.floor(i / 8) * 16];
    const packed = Array.from({ length: 40 }, (_, i) => parcel(`Strip number ${i}`, rect(...cell(i)), `Strip number ${i}`, i === 39));
    const placed = placeLabels(packed, opts);
    expect(placed.length).toBeLessThan(40);
    expect(placed.length).toBeGreaterThan(0);
    expect(placed[0]).toMatchObject({ id: 'Strip number 39', bold: true });
    expectTidy(placed);
    for (const p of placed) {
      for (let i = 0; i < 40; i++) if (p.id !== `Strip number ${i}`) expect(overlaps(p.box, cell(i)), `${p.id} over strip ${i}`).toBe(false);
    }
  });

  it('names a multipolygon once, in its largest part that has room', () => {
    const p: LabelParcel = { id: 'Two parts', text: 'Two parts', polygons: [rect(100, 100, 110, 110), rect(300, 300, 500, 400)] };
    const placed = placeLabels([p], opts);
    expect(placed).toHaveLength(1);
    expect(placed[0]!.kind).toBe('inside');
    expect(placed[0]!.at).toEqual([400, 350]);
  });
});
