import { describe, expect, it } from 'vitest';
import { parseRuleset } from '../index.ts';
import type { TableRec } from './table.ts';

const TEXT = `*nat
:PREROUTING ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:A - [0:0]
:B - [0:0]
:GONE - [0:0]
-A PREROUTING -j A
-A PREROUTING -p tcp -g B
-A A -j RETURN
-A A -s 10.0.0.1 -j RETURN
-A A -m comment --comment note
-A A -m statistic --mode random --probability 0.5 -j B
-A A -m statistic --mode random --probability 0.5 -j B
-A B -p tcp -j DNAT --to-destination 10.0.0.2:80
-A B -p tcp -j DNAT --to-destination 10.0.0.3:80
-A GONE -j MARK --set-xmark 0x1/0x1
-A OUTPUT -j MARK --set-xmark 0x1/0x1
-F GONE
-A OUTPUT -j GONE
COMMIT
`;

const nat = () => parseRuleset(TEXT).ruleset.tables.get('nat') as TableRec;

describe('a table keeps its rules as columns, and a rule object is made when asked for', () => {
  it("gives each rule its own target, target name and chain, neighbours' alike or not", () => {
    const t = nat();
    const seen = t.ruleOrder.map((r) => {
      const op = r.target;
      return [
        r.chain,
        r.targetName,
        r.via,
        op.kind === 'jump' || op.kind === 'goto' ? `${op.kind} ${op.chain.name}` : op.kind,
        r.matches.length,
      ];
    });
    expect(seen).toEqual([
      ['PREROUTING', 'A', '-j', 'jump A', 0],
      ['PREROUTING', 'B', '-g', 'goto B', 0],
      ['A', 'RETURN', '-j', 'return', 0],
      ['A', 'RETURN', '-j', 'return', 0],
      ['A', null, null, 'none', 0],
      ['A', 'B', '-j', 'jump B', 1],
      ['A', 'B', '-j', 'jump B', 1],
      ['B', 'DNAT', '-j', 'dnat', 0],
      ['B', 'DNAT', '-j', 'dnat', 0],
      ['OUTPUT', 'MARK', '-j', 'mark', 0],
      ['OUTPUT', 'GONE', '-j', 'jump GONE', 0],
    ]);
    const dnat = (t.chains.get('B')?.rules ?? []).map((r) => r.target);
    expect(dnat.map((op) => (op.kind === 'dnat' ? op.ip : null))).toEqual(['10.0.0.2', '10.0.0.3']);
    // One jump operation per chain, shared by the rules that take it.
    const a = t.chains.get('A')?.rules ?? [];
    expect(a[3]?.target).toBe(a[4]?.target);
  });

  it('is one object per rule, whichever way it is reached', () => {
    const t = nat();
    const a = t.chains.get('A')?.rules ?? [];
    expect(a).toHaveLength(5);
    expect(t.ruleOrder.slice(2, 7)).toEqual(a);
    a.forEach((r, k) => expect(t.ruleOrder[2 + k]).toBe(r));
    expect(t.rule(2)).toBe(a[0]);
  });

  it('leaves flushed rules out of the order, and counts positions without them', () => {
    const t = nat();
    expect(t.chains.get('GONE')?.rules).toEqual([]);
    expect(t.ruleOrder.map((r) => r.line)).not.toContain(16);
    expect(t.chains.get('OUTPUT')?.rules.map((r) => [r.index, r.line])).toEqual([
      [1, 17],
      [2, 19],
    ]);
  });
});

describe('chain lines that the table refuses leave it as it was', () => {
  it('a chain declared twice: an error at the second, the first keeps its rules and place', () => {
    const r = parseRuleset(
      '*filter\n:A - [0:0]\n:B - [0:0]\n:A - [1:2]\n-A A -j ACCEPT\n-A B -j A\nCOMMIT\n',
    );
    expect(r.diagnostics.map((d) => [d.line, d.message])).toEqual([
      [4, 'chain A is declared twice in table filter'],
    ]);
    const t = r.ruleset.tables.get('filter') as TableRec;
    expect(t.chainOrder).toEqual(['A', 'B']);
    const a = t.chains.get('A');
    expect([a?.line, a?.counters, a?.rules.length]).toEqual([2, '[0:0]', 1]);
    const jump = t.chains.get('B')?.rules[0]?.target;
    expect(jump?.kind === 'jump' && jump.chain).toBe(a);
  });

  it('a policy on a user chain, or a bad one on a built-in chain: the name stays free', () => {
    const r = parseRuleset(
      '*filter\n:A ACCEPT [0:0]\n:INPUT REJECT [0:0]\n:A - [0:0]\n-A A -j ACCEPT\nCOMMIT\n',
    );
    expect(r.diagnostics.map((d) => [d.line, d.message, d.hint])).toEqual([
      [2, "user chain A cannot have a policy ('ACCEPT')", 'Write - instead.'],
      [3, "built-in chain INPUT needs a policy ACCEPT or DROP, not 'REJECT'", undefined],
    ]);
    const t = r.ruleset.tables.get('filter') as TableRec;
    expect(t.chains.get('A')?.line).toBe(4);
    expect(t.chains.get('INPUT')?.policy).toBe('ACCEPT');
    expect(t.chains.get('A')?.rules.map((x) => x.line)).toEqual([5]);
  });
});
