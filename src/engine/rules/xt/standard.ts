/** The standard verdicts ACCEPT, DROP and RETURN (net/ipv4/netfilter/ip_tables.c, XT_STANDARD_TARGET). */
import { fail, type TargetExtension, type TargetSpec } from '../extension.ts';
import {
  ACCEPT as ACCEPT_OP,
  DROP as DROP_OP,
  RETURN as RETURN_OP,
  type TargetOp,
} from '../target-op.ts';

/** A target that takes no options refuses the first one written. */
export function noOptions(t: TargetSpec): void {
  const first = t.options[0];
  if (first) fail(first.column, `${t.name} takes no options (${first.name})`);
}

const verdict = (name: string, op: TargetOp): TargetExtension => ({
  name,
  supported: true,
  options: {},
  compile(t) {
    noOptions(t);
    return op;
  },
});

export const ACCEPT = verdict('ACCEPT', ACCEPT_OP);
export const DROP = verdict('DROP', DROP_OP);
export const RETURN = verdict('RETURN', RETURN_OP);
