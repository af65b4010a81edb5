// The status structure of the self-intersection sweep: an AVL tree of segment ids in flat typed arrays (height
// at most ~1.44·log2(n), so every operation is O(log n) in the worst case, whatever the input). The tree compares
// nothing itself: callers walk it from `root` through `left`/`right` with their own (exact) predicate and attach
// the new node where the walk ended. Nodes are the ids themselves, so a segment is removed by id, without a search.

export const NIL = -1;

export class SweepTree {
  root = NIL;
  left = new Int32Array(0);
  right = new Int32Array(0);
  private up = new Int32Array(0);
  private height = new Uint8Array(0);

  /** Room for ids 0..n-1; the arrays are kept between uses and only grown. */
  reserve(n: number): void {
    if (this.left.length >= n) return;
    const capacity = Math.max(n, 2 * this.left.length, 64);
    this.left = new Int32Array(capacity);
    this.right = new Int32Array(capacity);
    this.up = new Int32Array(capacity);
    this.height = new Uint8Array(capacity);
  }

  clear(): void {
    this.root = NIL;
  }

  /** Links `node` as a new leaf below `parent` (NIL: as the root), as its right child when `asRight`. */
  attach(node: number, parent: number, asRight: boolean): void {
    this.left[node] = NIL;
    this.right[node] = NIL;
    this.up[node] = parent;
    this.height[node] = 1;
    if (parent === NIL) this.root = node;
    else if (asRight) this.right[parent] = node;
    else this.left[parent] = node;
    this.rebalanceFrom(parent);
  }

  /** Inserts `node` right after `at` in order (NIL: as the first node). */
  insertAfter(at: number, node: number): void {
    if (at === NIL) {
      const first = this.first();
      if (first === NIL) this.attach(node, NIL, false);
      else this.attach(node, first, false);
      return;
    }
    if (this.right[at] === NIL) {
      this.attach(node, at, true);
      return;
    }
    let t = this.right[at]!;
    while (this.left[t] !== NIL) t = this.left[t]!;
    this.attach(node, t, false);
  }

  /**
   * Puts `node` where `old` is, `old` leaving the tree: for a segment ending exactly where the next one starts,
   * with nothing else there, the newcomer's place along the sweep line is the one the other leaves.
   */
  replace(old: number, node: number): void {
    const { left, right, up } = this;
    left[node] = left[old]!;
    right[node] = right[old]!;
    this.height[node] = this.height[old]!;
    up[node] = up[old]!;
    this.transplant(old, node);
    if (left[node] !== NIL) up[left[node]!] = node;
    if (right[node] !== NIL) up[right[node]!] = node;
  }

  remove(node: number): void {
    const { left, right, up } = this;
    let start: number;
    if (left[node] !== NIL && right[node] !== NIL) {
      // The in-order successor (leftmost of the right subtree, no left child) takes the node's place.
      let s = right[node]!;
      while (left[s] !== NIL) s = left[s]!;
      if (up[s] !== node) {
        start = up[s]!;
        this.transplant(s, right[s]!);
        right[s] = right[node]!;
        up[right[s]!] = s;
      } else {
        start = s;
      }
      this.transplant(node, s);
      left[s] = left[node]!;
      up[left[s]!] = s;
    } else {
      start = up[node]!;
      this.transplant(node, left[node] !== NIL ? left[node]! : right[node]!);
    }
    this.rebalanceFrom(start);
  }

  next(node: number): number {
    const { left, right, up } = this;
    if (right[node] !== NIL) {
      let n = right[node]!;
      while (left[n] !== NIL) n = left[n]!;
      return n;
    }
    let n = node;
    let p = up[n]!;
    while (p !== NIL && right[p] === n) {
      n = p;
      p = up[n]!;
    }
    return p;
  }

  prev(node: number): number {
    const { left, right, up } = this;
    if (left[node] !== NIL) {
      let n = left[node]!;
      while (right[n] !== NIL) n = right[n]!;
      return n;
    }
    let n = node;
    let p = up[n]!;
    while (p !== NIL && left[p] === n) {
      n = p;
      p = up[n]!;
    }
    return p;
  }

  first(): number {
    let n = this.root;
    if (n === NIL) return NIL;
    while (this.left[n] !== NIL) n = this.left[n]!;
    return n;
  }

  /** Height of the subtree at `node` (0 for NIL); for tests of the balance. */
  heightOf(node: number): number {
    return node === NIL ? 0 : this.height[node]!;
  }

  parentOf(node: number): number {
    return this.up[node]!;
  }

  private transplant(u: number, v: number): void {
    const p = this.up[u]!;
    if (p === NIL) this.root = v;
    else if (this.left[p] === u) this.left[p] = v;
    else this.right[p] = v;
    if (v !== NIL) this.up[v] = p;
  }

  private h(n: number): number {
    return n === NIL ? 0 : this.height[n]!;
  }

  private update(n: number): void {
    this.height[n] = 1 + Math.max(this.h(this.left[n]!), this.h(this.right[n]!));
  }

  private rotateLeft(x: number): number {
    const { left, right, up } = this;
    const y = right[x]!;
    const b = left[y]!;
    right[x] = b;
    if (b !== NIL) up[b] = x;
    this.transplant(x, y);
    left[y] = x;
    up[x] = y;
    this.update(x);
    this.update(y);
    return y;
  }

  private rotateRight(x: number): number {
    const { left, right, up } = this;
    const y = left[x]!;
    const b = right[y]!;
    left[x] = b;
    if (b !== NIL) up[b] = x;
    this.transplant(x, y);
    right[y] = x;
    up[x] = y;
    this.update(x);
    this.update(y);
    return y;
  }

  private rebalanceFrom(start: number): void {
    let n = start;
    while (n !== NIL) {
      const l = this.left[n]!;
      const r = this.right[n]!;
      const hl = this.h(l);
      const hr = this.h(r);
      if (hl - hr > 1) {
        if (this.h(this.left[l]!) < this.h(this.right[l]!)) this.rotateLeft(l);
        n = this.rotateRight(n);
      } else if (hr - hl > 1) {
        if (this.h(this.right[r]!) < this.h(this.left[r]!)) this.rotateRight(r);
        n = this.rotateLeft(n);
      } else {
        this.height[n] = 1 + Math.max(hl, hr);
      }
      n = this.up[n]!;
    }
  }
}
