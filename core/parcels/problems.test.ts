import { describe, it, expect } from 'vitest';
import { charLength, describeValue, formatCoordinate, formatHectares, formatPoint, isPlainObject, joinPath, longerThan, report, reporter, withoutPlace } from './problems.ts';

describe('joinPath', () => {
  it('joins with / and starts bare at the root', () => {
    expect(joinPath('parcels', 3)).toBe('parcels/3');
    expect(joinPath('', 'name')).toBe('name');
  });

  it('escapes ~ and / in keys (RFC 6901)', () => {
    expect(joinPath('m', 'a/b~c')).toBe('m/a~1b~0c');
  });
});

describe('formatHectares', () => {
  it('uses two decimals', () => {
    expect(formatHectares(104.2699)).toBe('104.27');
    expect(formatHectares(3)).toBe('3.00');
  });

  it('adds decimals so a value over the limit never prints as the limit', () => {
    expect(formatHectares(100.004, 100)).toBe('100.004');
    expect(formatHectares(100.0000004, 100)).toBe('100.0000004');
    expect(formatHectares(99.999, 100)).toBe('100.00');
  });
});

describe('describeValue', () => {
  it('renders what the client sent briefly', () => {
    expect(describeValue(undefined)).toBe('nothing');
    expect(describeValue(null)).toBe('null');
    expect(describeValue('MultiPolygon')).toBe('"MultiPolygon"');
    expect(describeValue('x'.repeat(50))).toBe(`"${'x'.repeat(40)}"…`);
    expect(describeValue(4.5)).toBe('4.5');
    expect(describeValue([1, '2'])).toBe('[1,"2"]');
    expect(describeValue([1, 2, 3, 4, 5])).toBe('an array of 5 items');
    expect(describeValue({ a: 1 })).toBe('an object');
  });
});

describe('isPlainObject', () => {
  it('accepts JSON objects only', () => {
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject(Object.create(null))).toBe(true);
    expect(isPlainObject([])).toBe(false);
    expect(isPlainObject(null)).toBe(false);
    expect(isPlainObject(new Date())).toBe(false);
  });
});

describe('charLength / longerThan', () => {
  it('counts code points', () => {
    expect(charLength('🌾🌾')).toBe(2);
    expect('🌾🌾'.length).toBe(4);
    expect(longerThan('🌾🌾', 2)).toBe(false);
    expect(longerThan('🌾🌾🌾', 2)).toBe(true);
    expect(longerThan('abc', 2)).toBe(true);
  });
});

describe('withoutPlace', () => {
  it("drops the batch place a reporter puts before a problem, and nothing else", () => {
    const r = reporter(20);
    const p = report(r, 'parcels/20/geom', 'area_over_limit', 'area 8.01 ha exceeds the account\'s limit of 5 ha');
    expect(p.message).toBe('Parcel 20: area 8.01 ha exceeds the account\'s limit of 5 ha');
    expect(withoutPlace(p.message)).toBe('area 8.01 ha exceeds the account\'s limit of 5 ha');
    expect(withoutPlace('Parcel id 7: name is required')).toBe('Parcel id 7: name is required');
    expect(withoutPlace('Invalid body: Parcel 3: x')).toBe('Invalid body: Parcel 3: x');
  });
});

describe('formatCoordinate', () => {
  it('says at most 7 decimals, without the float noise or trailing zeros', () => {
    expect(formatCoordinate(37.605000000000004)).toBe('37.605');
    expect(formatCoordinate(-4.7652243660077644)).toBe('-4.7652244');
    expect(formatPoint(-4.7652243660077644, 37.88847980090086)).toBe('[-4.7652244, 37.8884798]');
    expect(formatCoordinate(5)).toBe('5');
  });
  it('never rounds a value outside its limit onto the limit', () => {
    expect(formatCoordinate(90.00000001, 90)).toBe('90.00000001');
    expect(formatCoordinate(-180.000000004, 180)).toBe('-180.000000004');
    expect(formatCoordinate(91.123456789, 90)).toBe('91.1234568');
  });
});
