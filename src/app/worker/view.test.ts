import { describe, expect, it } from 'vitest';
import type { LabResult } from '../../cluster/types.ts';
import { labView } from './view.ts';

/** A node whose INPUT chain is too long to show whole: the panel keeps the rules near a match. */
const RULES = `*filter\n:INPUT ACCEPT [0:0]\n${Array.from(
  { length: 400 },
  (_, i) => `-A INPUT -p tcp --dport ${1000 + i} -j ACCEPT`,
).join('\n')}\nCOMMIT\n`;

/** A result whose one run matched line `line` of the node's rules. */
function matching(line: number): LabResult {
  return {
    ok: true,
    diagnostics: [],
    cluster: null,
    choices: null,
    probe: null,
    runs: [
      {
        probability: 1,
        outcome: { kind: 'timeout', reason: 'test', host: null },
        events: [{ type: 'rule', host: 'n1', line } as never],
        choices: [],
      },
    ],
    rules: { n1: RULES },
  };
}

const kept = (r: LabResult) => labView(r).rules.n1?.[0]?.chains[0]?.rules.map((x) => x.line) ?? [];

describe('the rules panel digest', () => {
  it('follows the lines the packet matched, whether or not the rules text changed', () => {
    const near300 = kept(matching(300));
    expect(near300).toContain(300);
    // Same text, another matched line: not the digest made for the first one.
    const near100 = kept(matching(100));
    expect(near100).toContain(100);
    expect(near100).not.toContain(300);
    expect(kept(matching(300))).toEqual(near300);
  });
});
