import { describe, expect, it } from 'vitest';
import { decodeSurvey, encodeSurvey, SURVEY_KEY, type SurveyVertex } from '../../../core/gnss/survey.ts';
import { draftMetadata, modifiedMetadata } from './position-actions.ts';
import { setPosition } from './position-store.ts';

const rec = (lon: number, lat: number, accuracy = 0.02): SurveyVertex => ({ lon, lat, quality: 'rtk-fixed', satellites: 14, hdop: 0.6, accuracy, time: '2026-11-29T08:00:00.000Z' });

describe('the survey record a shape saves with', () => {
  it('a drawn ring: the records of its vertices from a position; none without any', () => {
    setPosition({ survey: [] });
    expect(draftMetadata([[0, 0], [1, 0], [1, 1]])).toBeUndefined();
    setPosition({ survey: [rec(0, 0), rec(1, 1), rec(5, 5)] });
    const md = draftMetadata([[0, 0], [1, 0], [1, 1]])!;
    expect(decodeSurvey(md).map((v) => [v.lon, v.lat])).toEqual([[0, 0], [1, 1]]);
  });

  it('a modified shape: the old records of vertices still there and the new ones; the rest of the metadata kept', () => {
    const old = encodeSurvey([rec(0, 0, 0.5), rec(1, 0, 0.5)]) as Record<string, string>;
    setPosition({ survey: [rec(0.5, 1)] });
    // (1, 0) was moved to (1.1, 0): its record goes; (0.5, 1) was added at the position.
    const md = modifiedMetadata({ crop: 'wheat', ...old }, [[[0, 0], [1.1, 0], [0.5, 1]]])!;
    expect(md.crop).toBe('wheat');
    expect(decodeSurvey(md).map((v) => [v.lon, v.lat, v.accuracy])).toEqual([[0, 0, 0.5], [0.5, 1, 0.02]]);
    // Nothing surveyed before or now: the metadata is left alone.
    setPosition({ survey: [] });
    expect(modifiedMetadata({ crop: 'wheat' }, [[[0, 0], [1, 0], [1, 1]]])).toBeUndefined();
    // Every surveyed vertex moved: the record goes.
    expect(modifiedMetadata({ crop: 'wheat', ...old }, [[[9, 9], [9, 8], [8, 8]]])).toEqual({ crop: 'wheat' });
    expect(SURVEY_KEY in old).toBe(true);
  });
});
