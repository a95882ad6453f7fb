/** Calico's Felix (iptables dataplane) as a rule generator: resources in, iptables-restore text out. */
export { renderFelix, workloadLabels, KNOWN_PROFILE } from './felix.ts';
export type { FelixInput, FelixNode, FelixOutput, FelixWorkload, FelixIpset } from './felix.ts';
export { parseSelector, isSelectorError, matches, canonical } from './selector.ts';
export type { Selector, SelectorError } from './selector.ts';
export type * from './types.ts';
export { FAILSAFE_IN, FAILSAFE_OUT } from './static.ts';
export { MARKS } from './marks.ts';
