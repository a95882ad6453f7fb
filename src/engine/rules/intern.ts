/**
 * The words iptables rules are made of, known in advance: option names, module and target
 * names, kube-proxy's fixed chain names and values. The tokenizer returns these constants
 * instead of slicing a new string for each of the millions of words of a large dump, and the
 * parser's comparisons with them are then identity checks.
 */
import { knownWords } from './registry.ts';

/** Words of every rule besides the registry's: commands, core options, frequent values. */
const COMMON = [
  '-A',
  '--append',
  '-I',
  '--insert',
  '-N',
  '-F',
  '-X',
  '-P',
  '-m',
  '--match',
  '-j',
  '--jump',
  '-g',
  '--goto',
  '-c',
  '!',
  '-p',
  '--protocol',
  '-s',
  '--source',
  '-d',
  '--destination',
  '-i',
  '-o',
  '-f',
  'all',
  'random',
  'nth',
  'LOCAL',
  'NEW',
  'ESTABLISHED',
  'RELATED,ESTABLISHED',
  'INVALID',
  'src',
  'dst',
  'src,dst',
  '0x4000/0x4000',
  '0x00004000/0x00004000',
  '0x4000',
  '0x00004000',
  '0x8000/0x8000',
  '0x00008000/0x00008000',
  'PREROUTING',
  'INPUT',
  'FORWARD',
  'OUTPUT',
  'POSTROUTING',
  'KUBE-SERVICES',
  'KUBE-NODEPORTS',
  'KUBE-POSTROUTING',
  'KUBE-MARK-MASQ',
  'KUBE-MARK-DROP',
  'KUBE-FORWARD',
  'KUBE-FIREWALL',
  'KUBE-PROXY-FIREWALL',
  'KUBE-EXTERNAL-SERVICES',
  'KUBE-PROXY-CANARY',
  'KUBE-KUBELET-CANARY',
  'lo',
  'eth0',
  '-',
  '[0:0]',
];

export class Interner {
  /** Words by length and last character. */
  private readonly buckets = new Map<number, string[]>();

  constructor(words: Iterable<string>) {
    for (const w of words) {
      if (w === '') continue;
      const key = w.length * 65536 + w.charCodeAt(w.length - 1);
      const b = this.buckets.get(key);
      if (!b) this.buckets.set(key, [w]);
      else if (!b.includes(w)) b.push(w);
    }
  }

  /** The known word equal to `line[start, end)`, or null. */
  find(line: string, start: number, end: number): string | null {
    const b = this.buckets.get((end - start) * 65536 + line.charCodeAt(end - 1));
    if (b === undefined) return null;
    for (let k = 0; k < b.length; k++) {
      const w = b[k] as string;
      if (line.startsWith(w, start)) return w;
    }
    return null;
  }
}

export const IPTABLES_WORDS = new Interner([...COMMON, ...knownWords()]);
