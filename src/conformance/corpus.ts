/** One case of a conformance corpus (the shared kube-proxy corpus files and the test fixtures copied from them). */
import type { Flow } from './flows.ts';
import type { Setup } from './setup.ts';

export interface CorpusCase {
  readonly id: string;
  readonly ipFamily: 'IPv4' | 'IPv6';
  /** A static ruleset the case was written against (kube-proxy tests that give one). */
  readonly dump: string | null;
  readonly setup?: Setup;
  readonly nodeIPs: readonly string[];
  readonly localAddresses: readonly string[];
  readonly flows: readonly Flow[];
}

/** The engine's family for a case. */
export const familyOf = (c: Pick<CorpusCase, 'ipFamily'>): 4 | 6 => (c.ipFamily === 'IPv6' ? 6 : 4);
