/**
 * Outcomes in the words of DOMAIN.md (answered by whom / refused / timeout), from a kernel probe
 * or from an engine Outcome, so the two can be compared as text.
 */
import type { Outcome } from '../engine/index.ts';
import type { AgentResult } from './agents.ts';

/** The three outcomes of DOMAIN.md, plus what the probe reported in detail. */
export type Verdict =
  | {
      readonly kind: 'answered';
      readonly reply: string;
      readonly srcSeen: string;
      readonly srcPortSeen: number;
    }
  | { readonly kind: 'refused'; readonly errno: string }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'other'; readonly what: string };

/** The errno a client socket gets for an ICMP unreachable code (net/ipv4/icmp.c icmp_err_convert). */
const VIA_ERRNO: Readonly<Record<string, string>> = {
  'tcp-reset': 'ECONNREFUSED',
  'icmp-port-unreachable': 'ECONNREFUSED',
  'icmp-net-unreachable': 'ENETUNREACH',
  'icmp-host-unreachable': 'EHOSTUNREACH',
  'icmp-admin-prohibited': 'EHOSTUNREACH',
  'icmp-code-9': 'ENETUNREACH',
  'icmp-code-10': 'EHOSTUNREACH',
};

/** Errors a connecting socket gets at once, or from an ICMP error / RST: all "refused". */
const REFUSALS = ['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EACCES', 'EINVAL', 'EPERM'];

/** connect() errors for the engine's local routing failures. */
const LOCAL_ERRNO: Readonly<Record<string, string>> = {
  'no-route': 'ENETUNREACH',
  'route-unreachable': 'EHOSTUNREACH',
  'route-prohibit': 'EACCES',
  'route-blackhole': 'EINVAL',
  'loopback-source': 'EINVAL',
};

export function kernelVerdict(r: AgentResult): Verdict {
  switch (r.kind) {
    case 'answered':
      return { kind: 'answered', reply: r.reply, srcSeen: r.srcSeen, srcPortSeen: r.srcPortSeen };
    case 'timeout':
      return r.connected
        ? { kind: 'other', what: 'connected, but no answer' }
        : { kind: 'timeout' };
    case 'error':
      return REFUSALS.includes(r.code)
        ? { kind: 'refused', errno: r.code }
        : { kind: 'other', what: r.code };
    default:
      return { kind: 'other', what: `garbled answer: ${r.text}` };
  }
}

export function engineVerdict(o: Outcome): Verdict {
  switch (o.kind) {
    case 'answered':
      return { kind: 'answered', reply: o.reply, srcSeen: o.srcSeen, srcPortSeen: o.srcPortSeen };
    case 'refused':
      return { kind: 'refused', errno: VIA_ERRNO[o.via] ?? `?${o.via}` };
    case 'unreachable':
      // A local failure: connect() fails with the route type's error (fib_props in
      // net/ipv4/fib_semantics.c), or EHOSTUNREACH once ARP gives up.
      return {
        kind: 'refused',
        errno: o.reason.includes('ARP')
          ? 'EHOSTUNREACH'
          : (LOCAL_ERRNO[o.reason] ?? `?${o.reason}`),
      };
    case 'timeout':
      return { kind: 'timeout' };
    default:
      return { kind: 'other', what: o.kind };
  }
}

/** `answered SSH-2.0 src=192.168.50.10` — what tests compare, without the source port. */
export function verdictText(v: Verdict): string {
  switch (v.kind) {
    case 'answered':
      return `answered "${v.reply}" src=${v.srcSeen}`;
    case 'refused':
      return `refused ${v.errno}`;
    case 'timeout':
      return 'timeout';
    default:
      return `other ${v.what}`;
  }
}
