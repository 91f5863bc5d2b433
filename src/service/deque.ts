/** FIFO with O(1) push, shift and unshift; the job queues hold tens of thousands of entries. */
export class Deque<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }
  push(v: T): void {
    this.items.push(v);
  }
  unshift(v: T): void {
    if (this.head > 0) this.items[--this.head] = v;
    else this.items.unshift(v);
  }
  peek(): T | undefined {
    return this.items[this.head];
  }
  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const v = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return v;
  }
  /** Removes every entry matching pred; returns them. */
  remove(pred: (v: T) => boolean): T[] {
    const kept: T[] = [];
    const gone: T[] = [];
    for (let i = this.head; i < this.items.length; i++) {
      const v = this.items[i] as T;
      (pred(v) ? gone : kept).push(v);
    }
    this.items = kept;
    this.head = 0;
    return gone;
  }
}

/** Binary min-heap keyed by a number. */
export class MinHeap<T> {
  private a: { k: number; v: T }[] = [];
  get size(): number {
    return this.a.length;
  }
  peekKey(): number | undefined {
    return this.a[0]?.k;
  }
  push(k: number, v: T): void {
    const a = this.a;
    a.push({ k, v });
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p].k <= a[i].k) break;
      [a[p], a[i]] = [a[i], a[p]];
      i = p;
    }
  }
  pop(): { k: number; v: T } | undefined {
    const a = this.a;
    if (a.length === 0) return undefined;
    const top = a[0];
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && a[l].k < a[m].k) m = l;
        if (r < a.length && a[r].k < a[m].k) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i], a[m]];
        i = m;
      }
    }
    return top;
  }
}
