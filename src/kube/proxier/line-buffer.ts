/**
 * Lines of restore input, like kube-proxy's `proxyutil.LineBuffer`. Lines are joined into text
 * chunks every few thousand lines: the small strings and string ropes that make up each rule
 * then die young instead of surviving until the end, which keeps garbage collection cheap on
 * rulesets of a hundred thousand rules.
 */
const CHUNK = 2048;

export class LineBuffer {
  private readonly chunks: string[] = [];
  private pending: string[] = [];
  private count = 0;

  push(line: string): void {
    this.pending.push(line);
    this.count++;
    if (this.pending.length === CHUNK) this.seal();
  }

  /** Number of lines written. */
  get length(): number {
    return this.count;
  }

  /** All lines, each followed by a newline. */
  text(): string {
    this.seal();
    return this.chunks.join('');
  }

  private seal(): void {
    if (this.pending.length === 0) return;
    this.chunks.push(`${this.pending.join('\n')}\n`);
    this.pending = [];
  }
}
