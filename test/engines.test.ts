// `npm ci` warns EBADENGINE when the running Node is outside a locked package's engines.node. The engines of
// package.json (which the README repeats) may therefore name only Node versions that every locked package accepts.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from './helpers/process.ts';

// npm's own range logic: semver is installed with the dependencies (it ships no types, hence the cast).
const semver = createRequire(import.meta.url)('semver') as { subset(sub: string, dom: string): boolean };

interface Locked { engines?: { node?: string } }
const read = <T>(file: string) => JSON.parse(readFileSync(resolve(ROOT, file), 'utf8')) as T;
const pkg = read<{ engines: { node: string } }>('package.json');
const lock = read<{ packages: Record<string, Locked> }>('package-lock.json');

it('every Node version package.json admits is admitted by every locked package (no EBADENGINE on npm ci)', () => {
  const refusing = Object.entries(lock.packages)
    .filter(([path, p]) => path !== '' && p.engines?.node !== undefined && !semver.subset(pkg.engines.node, p.engines.node))
    .map(([path, p]) => `${path.replace(/^.*node_modules\//, '')} wants node ${p.engines!.node}`);
  expect(refusing).toEqual([]);
  expect(lock.packages['']?.engines?.node).toBe(pkg.engines.node);
});
