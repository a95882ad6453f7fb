/**
 * The text of an nftables transaction as knftables writes it for `nft -f` (sigs.k8s.io/knftables,
 * objects.go `writeOperation`; the same lines the knftables Fake's `Dump` prints and kube-proxy's
 * tests compare): `add table|chain|set|map|rule|element <family> kube-proxy ...`, one object per
 * line. Only `add` (and `delete element` for a re-pointed map entry) is written: the flushes and
 * add+delete pairs kube-proxy also sends change nothing on a node without a kube-proxy table.
 */
import { LineBuffer } from '../proxier/line-buffer.ts';

export type NftFamily = 'ip' | 'ip6';

export interface BaseChainSpec {
  readonly type: 'filter' | 'nat';
  readonly hook: 'prerouting' | 'input' | 'forward' | 'output' | 'postrouting';
  readonly priority: number;
}

const quote = (s: string): string => `"${s}"`;

export class NftTransaction {
  readonly lines = new LineBuffer();
  private readonly head: string;
  /** Map and set contents by container, for kube-proxy's "same key, new value" replacement. */
  private readonly elements = new Map<string, Map<string, string>>();
  readonly chains: string[] = [];
  ruleCount = 0;

  constructor(
    readonly family: NftFamily,
    readonly table = 'kube-proxy',
  ) {
    this.head = `${family} ${table}`;
  }

  addTable(comment: string): void {
    this.lines.push(`add table ${this.head} { comment ${quote(comment)} ; }`);
  }

  addChain(name: string, opts: { base?: BaseChainSpec; comment?: string } = {}): void {
    const parts: string[] = [];
    if (opts.base)
      parts.push(`type ${opts.base.type} hook ${opts.base.hook} priority ${opts.base.priority} ;`);
    if (opts.comment !== undefined) parts.push(`comment ${quote(opts.comment)} ;`);
    this.chains.push(name);
    this.lines.push(
      parts.length
        ? `add chain ${this.head} ${name} { ${parts.join(' ')} }`
        : `add chain ${this.head} ${name}`,
    );
  }

  addSet(
    name: string,
    type: string,
    opts: { flags?: readonly string[]; timeoutSeconds?: number; comment?: string } = {},
  ): void {
    const parts = [`type ${type} ;`];
    if (opts.flags?.length) parts.push(`flags ${opts.flags.join(',')} ;`);
    if (opts.timeoutSeconds !== undefined) parts.push(`timeout ${opts.timeoutSeconds}s ;`);
    if (opts.comment !== undefined) parts.push(`comment ${quote(opts.comment)} ;`);
    this.lines.push(`add set ${this.head} ${name} { ${parts.join(' ')} }`);
  }

  addMap(name: string, type: string, comment: string): void {
    this.lines.push(`add map ${this.head} ${name} { type ${type} ; comment ${quote(comment)} ; }`);
  }

  addRule(chain: string, rule: string, comment?: string): void {
    this.ruleCount++;
    this.lines.push(
      comment === undefined
        ? `add rule ${this.head} ${chain} ${rule}`
        : `add rule ${this.head} ${chain} ${rule} comment ${quote(comment)}`,
    );
  }

  /**
   * kube-proxy's `nftElementStorage.ensureElem`: a key already present with the same value is
   * not written again; with another value it is deleted and added again.
   */
  addElement(
    container: string,
    key: readonly string[],
    value?: readonly string[],
    comment?: string,
  ): void {
    const k = key.join(' . ');
    const v = value?.join(' . ') ?? '';
    let held = this.elements.get(container);
    if (!held) this.elements.set(container, (held = new Map()));
    const before = held.get(k);
    if (before === v) return;
    if (before !== undefined) this.lines.push(`delete element ${this.head} ${container} { ${k} }`);
    held.set(k, v);
    const c = comment === undefined ? '' : ` comment ${quote(comment)}`;
    this.lines.push(`add element ${this.head} ${container} { ${k}${c}${v ? ` : ${v}` : ''} }`);
  }

  text(): string {
    return this.lines.text();
  }
}
