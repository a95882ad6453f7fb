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

/** Known words are at most this long (longer words are never looked up). */
const MAX_LEN = 64;

export class Interner {
  /** The words, grouped by length and first character (ASCII), in `slot` order. */
  private readonly words: string[];
  /** Each word's last character, beside it. */
  private readonly lasts: Int32Array;
  /** The words of slot `len * 128 + first` are `words[first[slot], first[slot + 1])`. */
  private readonly starts = new Int32Array(MAX_LEN * 128 + 1);

  constructor(words: Iterable<string>) {
    const slot = (w: string) => w.length * 128 + w.charCodeAt(0);
    const usable = [...new Set(words)].filter(
      (w) => w !== '' && w.length < MAX_LEN && w.charCodeAt(0) < 128,
    );
    usable.sort((a, b) => slot(a) - slot(b));
    this.words = usable;
    this.lasts = Int32Array.from(usable, (w) => w.charCodeAt(w.length - 1));
    let j = 0;
    for (let k = 0; k < this.starts.length; k++) {
      while (j < usable.length && slot(usable[j] as string) < k) j++;
      this.starts[k] = j;
    }
  }

  /**
   * The known word equal to `line[start, end)`, or null. An array index by length and first
   * character, not a Map: this runs for each of a dump's millions of words (a Map's lookup took
   * a third of the tokenizer's time).
   */
  find(line: string, start: number, end: number): string | null {
    const len = end - start;
    const c0 = line.charCodeAt(start);
    if (len >= MAX_LEN || c0 >= 128) return null;
    const slot = len * 128 + c0;
    const last = line.charCodeAt(end - 1);
    const stop = this.starts[slot + 1] as number;
    // The characters between the first and the last compared here: a call to startsWith per
    // word cost more than the loop (the words are short).
    for (let k = this.starts[slot] as number; k < stop; k++) {
      if (this.lasts[k] !== last) continue;
      const w = this.words[k] as string;
      let j = 1;
      while (j < len - 1 && w.charCodeAt(j) === line.charCodeAt(start + j)) j++;
      if (j >= len - 1) return w;
    }
    return null;
  }
}

export const IPTABLES_WORDS = new Interner([...COMMON, ...knownWords()]);
