// The default bound on connections from the limit of open files, and that limit as this process has it.
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { defaultMaxConnections, openFilesLimit, outOfDescriptors } from './connections.ts';

describe('the limit of open files', () => {
  it('is read as the shell reports it', () => {
    const shell = execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim();
    expect(openFilesLimit()).toBe(shell === 'unlimited' ? null : Number(shell));
  });

  it('leaves a quarter of it, at least 128, to the rest of the process; 1,000 connections at most, 16 at least', () => {
    expect(defaultMaxConnections(null)).toBe(1000);
    expect(defaultMaxConnections(20_000)).toBe(1000);
    expect(defaultMaxConnections(1024)).toBe(768);
    expect(defaultMaxConnections(256)).toBe(128);
    expect(defaultMaxConnections(100)).toBe(16);
  });

  it('tells a process at its limit from one far from it', () => {
    expect(outOfDescriptors(openFilesLimit())).toBe(false);
    expect(outOfDescriptors(3)).toBe(true);
  });
});
