// A listed geometry's text kept from the page (sync/listed-geometry.ts): the service's own spelling is kept, and any
// other page leaves its geometries to JSON.stringify; whatever is kept is the JSON of the geometry JSON.parse read.
import { describe, expect, it } from 'vitest';
import type { ParcelFeature } from '../core/schemas/parcels.ts';
import { listedGeometryText, readListingPage, rememberGeometryTexts } from './listed-geometry.ts';
import { listedParcelColumns, parcelColumns, parcelStateOfFeature } from './state.ts';

const ring = (lon: number, lat: number) => [[lon, lat], [lon + 0.001, lat], [lon + 0.001, lat + 0.0013], [lon, lat + 0.001], [lon, lat]];
const feature = (id: number, extra: Record<string, unknown> = {}) => ({
  type: 'Feature', id, bbox: [0, 0, 1, 1], ...extra,
  geometry: { type: 'Polygon', coordinates: id % 2 ? [ring(-5.9 + id / 1000, 37.4)] : [ring(-5.9, 37.4 + id / 1000), ring(-5.8999, 37.4001 + id / 1000).reverse()] },
  properties: {
    key: `01a22ba9-c24c-7000-8000-${String(id).padStart(12, '0')}`, name: `P${id}`, farm: 1, hectares: 1.5,
    metadata: { note: '"geometry":{"type":"Polygon","coordinates":[[[1,2]]]}', region: 'Andalucía' }, source_type: 'Polygon', point: null,
    center: [0, 0], created: '2026-01-01T00:00:00.000Z', modified: '2026-01-01T00:00:00.000Z',
  },
});
const page = (features: unknown[]) => ({ type: 'FeatureCollection', features, count: features.length, next: null });

/** The page read as the pull reads it; each feature's kept text (or undefined). */
function kept(text: string): { features: ParcelFeature[]; texts: (string | undefined)[] } {
  const read = readListingPage(Buffer.from(text))!;
  const features = (read.value as { features: ParcelFeature[] }).features;
  rememberGeometryTexts(read.text, features);
  // The same columns as serialized again, the geometry the same JSON value (the same text where the service's spelling is JSON.stringify's).
  const valued = (c: { geometry: string }) => ({ ...c, geometry: JSON.parse(c.geometry) as unknown });
  for (const f of features) expect(valued(listedParcelColumns(f))).toEqual(valued(parcelColumns(parcelStateOfFeature(f).state)));
  return { features, texts: features.map((f) => listedGeometryText(f.geometry)) };
}

describe('geometry texts kept from a listing page', () => {
  it('keeps each geometry as the service spells it (JSON.stringify\'s text), the columns the same as serialized again', () => {
    const { features, texts } = kept(JSON.stringify(page([1, 2, 3, 4].map((id) => feature(id)))));
    expect(texts).toEqual(features.map((f) => JSON.stringify(f.geometry)));
  });

  it('keeps another spelling of the same numbers, which reads back as the same geometry', () => {
    const text = JSON.stringify(page([feature(1), feature(2)])).replace('"coordinates":[[[', '"coordinates":[[[ ').replace(/37\.4,/g, '37.40e0,');
    const { features, texts } = kept(text);
    expect(texts.every((t) => t !== undefined)).toBe(true);
    texts.forEach((t, i) => expect(JSON.parse(t!)).toEqual(features[i]!.geometry));
  });

  it('keeps nothing from a page spelled otherwise: spaced, members in another order, another member in the geometry', () => {
    const features = [1, 2].map((id) => feature(id));
    expect(kept(JSON.stringify(page(features), null, 1)).texts).toEqual([undefined, undefined]);
    const reordered = features.map((f) => ({ ...f, geometry: { coordinates: f.geometry.coordinates, type: 'Polygon' } }));
    expect(kept(JSON.stringify(page(reordered))).texts).toEqual([undefined, undefined]);
    const boxed = features.map((f) => ({ ...f, geometry: { ...f.geometry, bbox: [0, 0, 1, 1] } }));
    expect(kept(JSON.stringify(page(boxed))).texts).toEqual([undefined, undefined]);
  });

  it('never takes another object\'s geometry member for the feature\'s: a page with one is serialized', () => {
    const decoy = { geometry: { type: 'Polygon', coordinates: [ring(10, 10)] } };
    expect(kept(JSON.stringify(page([feature(1), feature(2, { decoy }), feature(3)]))).texts).toEqual([undefined, undefined, undefined]);
  });

  it('never keeps the first of two geometry members (JSON.parse keeps the last), however the second is spelled', () => {
    // The first and last numbers alike, the middle ones not: only the count of members can tell.
    const twin = (f: ReturnType<typeof feature>) => {
      const g = structuredClone(f.geometry);
      g.coordinates[0]![1]![0]! += 0.5;
      return JSON.stringify(f).replace('"geometry":', `"geometry":${JSON.stringify(g)},"geometry":`);
    };
    const plain = `{"type":"FeatureCollection","features":[${twin(feature(1))},${JSON.stringify(feature(2))}],"count":2,"next":null}`;
    expect(kept(plain).texts).toEqual([undefined, undefined]);
    const escaped = plain.replace('"geometry":{', '"geometr\\u0079":{').replace('"geometry":{', '"geometry":{');
    const { features, texts } = kept(escaped.replace(/"geometr\\u0079":(\{[^}]*\}),"geometry":/, '"geometry":$1,"geometr\\u0079":'));
    expect(features[0]!.geometry.coordinates[0]![1]![0]).toBeCloseTo(-5.9 + 1 / 1000 + 0.001, 9);
    expect(texts).toEqual([undefined, undefined]);
  });

  it('reads bytes that are not JSON as nothing, for the client to report', () => {
    expect(readListingPage(Buffer.from('<html>'))).toBeUndefined();
  });
});
