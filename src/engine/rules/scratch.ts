/**
 * Reusing objects from rule to rule while a dump is read. A 100k-rule dump made millions of
 * short-lived objects (words, options, arrays of them), and collecting them was a quarter of
 * the parse time; the parser and compiler keep one set and refill it for every rule.
 */

/**
 * Empties an array but keeps its storage. `a.length = 0` gives V8 arrays a new backing store
 * on the next push (measured: 150 bytes per reuse); shortening to one and popping does not.
 */
export function clear(a: unknown[]): void {
  if (a.length === 0) return;
  a.length = 1;
  a.pop();
}

/** Objects of one kind handed out again after `reset`. */
export class Slots<T> {
  private readonly all: T[] = [];
  private used = 0;
  constructor(private readonly make: () => T) {}
  reset(): void {
    this.used = 0;
  }
  take(): T {
    let x = this.all[this.used];
    if (x === undefined) this.all.push((x = this.make()));
    this.used++;
    return x;
  }
}
