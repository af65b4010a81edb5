import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { NIL, SweepTree } from './sweep-tree.ts';

/** In-order ids, checking parent links and the AVL balance on the way. */
function inOrder(tree: SweepTree): number[] {
  const out: number[] = [];
  const walk = (n: number, parent: number): number => {
    if (n === NIL) return 0;
    expect(tree.parentOf(n)).toBe(parent);
    const hl = walk(tree.left[n]!, n);
    out.push(n);
    const hr = walk(tree.right[n]!, n);
    expect(Math.abs(hl - hr)).toBeLessThanOrEqual(1);
    expect(tree.heightOf(n)).toBe(1 + Math.max(hl, hr));
    return 1 + Math.max(hl, hr);
  };
  walk(tree.root, NIL);
  return out;
}

// The tree orders nothing itself: a list of ids is the model, and every operation is mirrored on it.
type Op = { kind: 'after'; at: number } | { kind: 'remove'; at: number } | { kind: 'replace'; at: number };
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('after' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('remove' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat() }),
);

describe('SweepTree', () => {
  it('keeps the order of a list under insertions, removals and replacements, balanced', () => {
    fc.assert(fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
      const tree = new SweepTree();
      tree.reserve(ops.length + 1);
      tree.clear();
      const model: number[] = [];
      let nextId = 0;
      for (const o of ops) {
        if (o.kind === 'after') {
          // at % (length + 1) === 0 inserts first; otherwise after the element before that position.
          const k = o.at % (model.length + 1);
          const id = nextId++;
          tree.insertAfter(k === 0 ? NIL : model[k - 1]!, id);
          model.splice(k, 0, id);
        } else if (model.length > 0) {
          const k = o.at % model.length;
          if (o.kind === 'remove') {
            tree.remove(model[k]!);
            model.splice(k, 1);
          } else {
            const id = nextId++;
            tree.replace(model[k]!, id);
            model[k] = id;
          }
        }
        expect(inOrder(tree)).toEqual(model);
      }
      // Walking by next/prev gives the same order.
      const forward: number[] = [];
      for (let n = tree.first(); n !== NIL; n = tree.next(n)) forward.push(n);
      expect(forward).toEqual(model);
      const backward: number[] = [];
      for (let n = model.length ? model[model.length - 1]! : NIL; n !== NIL; n = tree.prev(n)) backward.push(n);
      expect(backward).toEqual([...model].reverse());
    }), { numRuns: 300 });
  });

  it('stays logarithmic in height when ids arrive in order (the sweep over a long edge)', () => {
    const tree = new SweepTree();
    tree.reserve(100_000);
    tree.clear();
    let last = NIL;
    for (let id = 0; id < 100_000; id++) {
      tree.insertAfter(last, id);
      last = id;
    }
    expect(tree.heightOf(tree.root)).toBeLessThanOrEqual(Math.ceil(1.45 * Math.log2(100_000 + 2)));
  });
});
