import { describe, expect, it } from 'vitest';
import { pickShape } from './pick.ts';

const square = (id: string, x: number, y: number, d: number) => ({ id, geometry: { type: 'Polygon', coordinates: [[[x, y], [x + d, y], [x + d, y + d], [x, y + d], [x, y]]] } });

describe('pickShape', () => {
  const big = square('big', 0, 0, 1);
  const small = square('small', 0.4, 0.4, 0.2);
  const far = square('far', 2, 0, 1);
  it('picks the smallest shape containing the point', () => {
    expect(pickShape([big, small, far], [0.5, 0.5], 0.001, 3)?.id).toBe('small');
    expect(pickShape([small, big], [0.1, 0.1], 0.001, 3)?.id).toBe('big');
  });
  it('picks the nearest outline within the tolerance in pixels, none beyond', () => {
    // 0.002° beyond the big square's east edge at the equator: 2 px of 0.001°.
    expect(pickShape([big, far], [1.002, 0.5], 0.001, 3)?.id).toBe('big');
    expect(pickShape([big, far], [1.004, 0.5], 0.001, 3)).toBeNull();
    expect(pickShape([big, far], [1.99, 0.5], 0.001, 20)?.id).toBe('far');
  });
  it('counts a degree of latitude longer than one of longitude away from the equator', () => {
    // At 60° a pixel of 0.001° of longitude is 0.0005° of latitude: 0.0012° north of the edge is 2.4 px.
    const north = square('n', 0, 59, 1);
    expect(pickShape([north], [0.5, 60.0012], 0.001, 3)?.id).toBe('n');
    expect(pickShape([north], [0.5, 60.0012], 0.001, 2)).toBeNull();
  });
  it('leaves out a hole', () => {
    const ring = { id: 'ring', geometry: { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]], [[0.25, 0.25], [0.75, 0.25], [0.75, 0.75], [0.25, 0.75], [0.25, 0.25]]] } };
    expect(pickShape([ring], [0.5, 0.5], 0.001, 3)).toBeNull();
    expect(pickShape([ring], [0.1, 0.5], 0.001, 3)?.id).toBe('ring');
  });
});
