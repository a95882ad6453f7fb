/**
 * Targets of the raw table, before conntrack: NOTRACK and `CT --notrack` leave the packet
 * untracked (xt_CT.c), TRACE asks for `xtables-monitor --trace` events (xt_TRACE.c).
 */
import { o, option, type TargetExtension } from '../extension.ts';
import { NOTRACK as NOTRACK_OP, TRACE as TRACE_OP } from '../target-op.ts';

export const TRACE: TargetExtension = {
  name: 'TRACE',
  supported: true,
  options: {},
  place: { tables: ['raw'] },
  compile: () => TRACE_OP,
};

export const NOTRACK: TargetExtension = {
  name: 'NOTRACK',
  supported: true,
  options: {},
  place: { tables: ['raw'] },
  compile: () => NOTRACK_OP,
};

export const CT: TargetExtension = {
  name: 'CT',
  supported: true,
  options: {
    '--notrack': o(0),
    '--zone': o(1),
    '--zone-orig': o(1),
    '--zone-reply': o(1),
    '--helper': o(1),
    '--ctevents': o(1),
    '--expevents': o(1),
    '--timeout': o(1),
  },
  place: { tables: ['raw'] },
  compile(t) {
    if (option(t, '--notrack')) return NOTRACK_OP;
    return { kind: 'unsupported', what: `CT ${t.options.map((x) => x.name).join(' ')}` };
  },
};
