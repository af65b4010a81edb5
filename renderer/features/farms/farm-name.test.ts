import { describe, expect, it } from 'vitest';
import { farmNameProblem } from './farm-name.ts';

describe('farmNameProblem', () => {
  it('keeps a trimmed name', () => {
    expect(farmNameProblem('  Finca Nueva ')).toEqual({ name: 'Finca Nueva', problem: null });
  });
  it('refuses an empty or too long name, saying why', () => {
    expect(farmNameProblem('   ')).toEqual({ name: null, problem: 'The farm name is required and must not be empty or only whitespace' });
    expect(farmNameProblem('x'.repeat(256)).problem).toBe('The farm name has 256 characters; at most 255 are allowed');
    // Counted in characters (code points), as the service counts them.
    expect(farmNameProblem('🌾'.repeat(255)).name).toBe('🌾'.repeat(255));
  });
});
