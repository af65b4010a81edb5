import { describe, expect, it } from 'vitest';
import { checkMetadata } from '../parcels/metadata.ts';
import { reporter } from '../parcels/problems.ts';
import { decodeSurvey, encodeSurvey, isSurveyKey, SURVEY_KEY, withSurvey, type SurveyVertex } from './survey.ts';

const v = (i: number, over: Partial<SurveyVertex> = {}): SurveyVertex => ({
  lon: -4.0123 + i * 1.1e-5, lat: 37.2045 - i * 0.7e-5, quality: 'rtk-fixed', satellites: 14, hdop: 0.7, accuracy: 0.021,
  time: new Date(Date.UTC(2026, 10, 29, 8, 0, 0) + i * 1500).toISOString(), ...over,
});

const roundTrip = (vs: SurveyVertex[]) => vs.map((x) => ({ ...x, lon: Number(x.lon.toFixed(7)), lat: Number(x.lat.toFixed(7)) }));

describe('survey record', () => {
  it('round-trips its vertices, unknown values included', () => {
    const vs = [v(0), v(1, { quality: 'gps', satellites: null, hdop: null, accuracy: null }), v(2, { quality: 'system', accuracy: 12.5 }), v(3, { quality: 'rtk-float' })];
    const md = encodeSurvey(vs) as Record<string, string>;
    expect(Object.keys(md)).toEqual([SURVEY_KEY]);
    expect(md[SURVEY_KEY]).toMatch(/^1;2026-11-29T08:00:00Z;-4\.0123,37\.2045,R,14,0\.7,0\.021,0;/);
    expect(decodeSurvey(md)).toEqual(roundTrip(vs));
  });

  it('continues under furrow:survey:2… past 2,000 characters, every value within the metadata rules', () => {
    const vs = Array.from({ length: 500 }, (_, i) => v(i));
    const md = encodeSurvey(vs) as Record<string, string>;
    const keys = Object.keys(md);
    expect(keys.length).toBeGreaterThan(1);
    expect(keys[1]).toBe('furrow:survey:2');
    for (const value of Object.values(md)) expect(value.length).toBeLessThanOrEqual(2000);
    const r = reporter(0, 'p');
    expect(checkMetadata(md, r, 'metadata')).not.toBeNull();
    expect(r.problems).toEqual([]);
    expect(decodeSurvey(md)).toEqual(roundTrip(vs));
    // about 45 vertices a key: a walked field's few dozen vertices fit in one or two
    expect(vs.length / keys.length).toBeGreaterThan(40);
  });

  it('says when it does not fit in the keys left', () => {
    const r = encodeSurvey(Array.from({ length: 500 }, (_, i) => v(i)), 3);
    expect(r).toHaveProperty('error');
    expect((r as { error: string }).error).toMatch(/needs \d+ metadata keys; the parcel has 3 left/);
  });

  it('withSurvey keeps the records of the shape\'s vertices only, and the other metadata', () => {
    const vs = [v(0), v(1), v(2)];
    const ring: [number, number][] = [[vs[0]!.lon, vs[0]!.lat], [5, 5], [vs[2]!.lon, vs[2]!.lat]];
    const md = withSurvey({ crop: 'wheat', [SURVEY_KEY]: 'old', 'furrow:survey:2': 'old' }, vs, [ring]) as Record<string, string>;
    expect(md.crop).toBe('wheat');
    expect(md['furrow:survey:2']).toBeUndefined();
    expect(decodeSurvey(md)).toEqual(roundTrip([vs[0]!, vs[2]!]));
    // nothing surveyed left: no record
    expect(Object.keys(withSurvey({ [SURVEY_KEY]: 'x', a: 1 }, vs, [[[9, 9], [9, 8], [8, 8]]]))).toEqual(['a']);
  });

  it('reads no record from metadata without one, or of another version', () => {
    expect(decodeSurvey({})).toEqual([]);
    expect(decodeSurvey({ [SURVEY_KEY]: '9;2026-01-01T00:00:00Z;1,2,R,,,,0' })).toEqual([]);
    expect(isSurveyKey('furrow:survey:12')).toBe(true);
    expect(isSurveyKey('furrow:surveyor')).toBe(false);
  });
});
