/**
 * Packet and connection marks: the `mark` and `connmark` matches and the MARK and CONNMARK
 * targets (net/netfilter/xt_mark.c, xt_connmark.c). kube-proxy marks packets to masquerade with
 * 0x4000 (KUBE-MARK-MASQ) and tests the mark in KUBE-POSTROUTING.
 */
import {
  arg,
  fail,
  negate,
  o,
  option,
  type MatchExtension,
  type OptionSpec,
  type TargetExtension,
} from '../extension.ts';
import type { TargetOp } from '../target-op.ts';
import { parseMarkMask } from '../values.ts';

function markMatch(name: 'mark' | 'connmark'): MatchExtension {
  return {
    name,
    supported: true,
    options: { '--mark': o(1, true) },
    compile(mod, cx) {
      for (const opt of mod.options) {
        const { value, mask } = parseMarkMask(arg(opt), opt.column);
        cx.add(
          negate((c) => {
            const v = name === 'mark' ? c.pkt.mark : (c.ct.conn?.mark ?? 0);
            return (v & mask) >>> 0 === value;
          }, opt.negated),
        );
      }
    },
  };
}

export const mark = markMatch('mark');
export const connmark = markMatch('connmark');

const markOpts = {
  '--set-xmark': o(1),
  '--set-mark': o(1),
  '--and-mark': o(1),
  '--or-mark': o(1),
  '--xor-mark': o(1),
};

/** The `value/mask` an xmark operation applies: mark = (mark & ~mask) ^ value (libxt_MARK.c). */
function xmark(options: readonly OptionSpec[]): { value: number; mask: number } | null {
  let op: { value: number; mask: number } | null = null;
  for (const opt of options) {
    const v = arg(opt);
    switch (opt.name) {
      case '--set-xmark':
        op = parseMarkMask(v, opt.column);
        break;
      case '--set-mark': {
        const { value, mask } = parseMarkMask(v, opt.column);
        op = { value, mask: mask >>> 0 };
        break;
      }
      case '--or-mark': {
        const { value } = parseMarkMask(v, opt.column);
        op = { value, mask: value };
        break;
      }
      case '--and-mark': {
        const { value } = parseMarkMask(v, opt.column);
        op = { value: 0, mask: ~value >>> 0 };
        break;
      }
      case '--xor-mark': {
        const { value } = parseMarkMask(v, opt.column);
        op = { value, mask: 0 };
        break;
      }
      default:
        break;
    }
  }
  return op;
}

const needsXmark = (name: string, column: number): never =>
  fail(column, `${name} needs --set-xmark, --set-mark, --or-mark, --and-mark or --xor-mark`);

export const MARK: TargetExtension = {
  name: 'MARK',
  supported: true,
  options: markOpts,
  compile(t) {
    const op = xmark(t.options) ?? needsXmark('MARK', t.column);
    return { kind: 'mark', value: op.value, mask: op.mask };
  },
};

export const CONNMARK: TargetExtension = {
  name: 'CONNMARK',
  supported: true,
  options: {
    ...markOpts,
    '--save-mark': o(0),
    '--restore-mark': o(0),
    '--nfmask': o(1),
    '--ctmask': o(1),
    '--mask': o(1),
  },
  compile(t): TargetOp {
    const save = option(t, '--save-mark');
    if (save || option(t, '--restore-mark')) {
      const maskOf = (n: string, dflt: number) => {
        const m = option(t, n);
        return m ? parseMarkMask(arg(m), t.column).value : dflt;
      };
      const mask = maskOf('--mask', 0xffffffff);
      return {
        kind: 'connmark',
        mode: save ? 'save' : 'restore',
        nfmask: maskOf('--nfmask', mask),
        ctmask: maskOf('--ctmask', mask),
      };
    }
    const op = xmark(t.options) ?? needsXmark('CONNMARK', t.column);
    return { kind: 'connmark', mode: 'set', value: op.value, mask: op.mask };
  },
};
