// The repository stands alone: every link and path its documents give resolves to a file inside it, nothing points
// at a folder outside it, and every `files` pattern of the lint configuration matches a file that exists.
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { ROOT } from './helpers/process.ts';

/** Generated or installed, never part of the repository (.gitignore). */
const SKIP = new Set(['node_modules', 'data', 'dist', '.git', 'screenshots', 'tmp', '.tmp']);

function files(dir = ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (SKIP.has(e.name)) return [];
    const path = join(dir, e.name);
    return e.isDirectory() ? files(path) : [relative(ROOT, path).split(sep).join('/')];
  });
}
const ALL = files();
const inside = (abs: string) => !relative(ROOT, abs).startsWith('..');

describe('documents', () => {
  const docs = ALL.filter((f) => f.endsWith('.md'));

  it('finds the documents', () => {
    expect(docs).toEqual(expect.arrayContaining(['README.md', 'docs/api.md', 'docs/sync.md', 'docs/import-export.md', 'docs/benchmarks.md', 'examples/README.md']));
  });

  it('link only to files inside the repository that exist', () => {
    const bad: string[] = [];
    for (const doc of docs) {
      const text = readFileSync(resolve(ROOT, doc), 'utf8');
      // [text](target) and ![alt](target); web links and anchors within a page are not files.
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        if (/^(?:[a-z]+:|#)/i.test(target!)) continue;
        const abs = resolve(ROOT, dirname(doc), decodeURI(target!.split('#')[0]!));
        if (!inside(abs)) bad.push(`${doc}: ${target} is outside the repository`);
        else if (!existsSync(abs)) bad.push(`${doc}: ${target} does not exist`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('name no path outside the repository, in documents or in code', () => {
    // The team's shared folder next to the checkout, this machine's work tree, a guide that was never in the repository.
    const outside = /\.\.\/shared\/|\/work\/|DEVELOPERS\.md/;
    const text = ALL.filter((f) => /\.(?:md|ts|js|mjs|json|ya?ml)$/.test(f) && !f.startsWith('bench/results/') && f !== 'package-lock.json' && f !== 'test/docs.test.ts');
    const bad = text.flatMap((f) => readFileSync(resolve(ROOT, f), 'utf8').split('\n')
      .flatMap((line, i) => (outside.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])));
    expect(bad).toEqual([]);
  });
});

/** ESLint's globs as far as this configuration uses them: `**`, `*` and `{a,b}`. */
function globRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (glob.startsWith('**/', i)) {
      re += '(?:.*/)?';
      i += 2;
    } else if (glob.startsWith('**', i)) {
      re += '.*';
      i += 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '{') re += '(?:';
    else if (c === '}') re += ')';
    else if (c === ',') re += '|';
    else re += c.replace(/[.+?^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

describe('eslint.config.js', () => {
  it('matches an existing file with every files pattern', () => {
    // The patterns written in the file (the presets it spreads in bring their own, for any project).
    const source = readFileSync(resolve(ROOT, 'eslint.config.js'), 'utf8');
    const patterns = [...source.matchAll(/\bfiles:\s*\[([^\]]*)\]/g)].flatMap((m) => [...m[1]!.matchAll(/'([^']+)'/g)].map((q) => q[1]!));
    expect(patterns.length).toBeGreaterThan(0);
    const unmatched = patterns.filter((p) => !ALL.some((f) => globRegExp(p).test(f)));
    expect(unmatched).toEqual([]);
  });
});
