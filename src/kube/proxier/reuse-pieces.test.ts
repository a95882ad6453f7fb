/**
 * The engine's piece reuse (src/engine/rules/pieces.ts) on kube-proxy's own rulesets: reading a
 * generated ruleset with what an earlier, different text left in the cache gives exactly what
 * reading it afresh gives (tables, chains, rule order, every rule's fields, diagnostics), for any
 * edit of the text, whatever pieces it cuts into.
 */
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { normaliseMark, setupToProxierInput, type Setup } from '../../conformance/setup.ts';
import { parseRuleset } from '../../engine/index.ts';
import { forgetPieces } from '../../engine/rules/pieces.ts';
import { applyLineEdits, lineEdit, type LineEdit } from '../../engine/testing/line-edits.ts';
import { parseShape } from '../../engine/testing/ruleset-shape.ts';
import reference from './fixtures/reference-dump.json' with { type: 'json' };
import { mixedCluster } from './fixtures/build.ts';
import { generateProxierRules, isPerServiceChain } from './index.ts';

const referenceDump = generateProxierRules(
  setupToProxierInput(reference.setup as Setup, ['192.168.0.2'], 'IPv4'),
).dump;

/** The rules of twelve Services of every shape (LoadBalancers and Local policies too). */
const clusterDump = (family: 4 | 6): string => generateProxierRules(mixedCluster(family)).dump;

/** A line put in by an edit: other commands, comments, blank or indented lines, mistakes. */
const EXTRA = [
  '-N KUBE-NEW',
  ':KUBE-NEW - [0:0]',
  '-A KUBE-NEW -j RETURN',
  '-F KUBE-SERVICES',
  '-X KUBE-MARK-MASQ',
  '-I KUBE-SERVICES 1 -j ACCEPT',
  '-I KUBE-SERVICES -p tcp --dport 22 -j RETURN',
  '-A KUBE-SERVICES -m statistic --mode random --probability 0.5 -j RETURN',
  '-A KUBE-SERVICES -i eth0+ -o cni0 -j RETURN',
  '-A KUBE-SERVICES -j KUBE-NEW',
  '-A NOPE -j ACCEPT',
  '-A KUBE-SERVICES -j NOWHERE',
  '-A KUBE-SERVICES -p tcp --dport 99999 -j RETURN',
  '[5:300] -A KUBE-SERVICES -j RETURN',
  '-A KUBE-SERVICES  -j RETURN',
  '-P FORWARD DROP',
  '# a comment',
  '',
  '  -A KUBE-SERVICES -j RETURN',
  'COMMIT',
  '*nat',
  '*filter',
  ':KUBE-SERVICES - [0:0]',
];

const edit = lineEdit(EXTRA.length);

const apply = (text: string, edits: readonly LineEdit[]): string =>
  applyLineEdits(text, edits, (e) => EXTRA[e.line] as string);

function expectSameAsFresh(text: string, family: 4 | 6): void {
  const fresh = parseShape(parseRuleset(text, { family }));
  expect(parseShape(parseRuleset(text, { family, reusePieces: true }))).toEqual(fresh);
}

const dumps: [string, string, 4 | 6][] = [
  ['the reference setup (TestOverallIPTablesRules)', referenceDump, 4],
  ['a cluster of 12 Services', clusterDump(4), 4],
  ['a cluster of 12 Services, IPv6', clusterDump(6), 6],
];

describe('reading a generated ruleset with the pieces of another text', () => {
  beforeEach(() => forgetPieces());

  it.each(dumps)('%s: read again, it is what it was', (_name, dump, family) => {
    expect(parseRuleset(dump, { family }).diagnostics).toEqual([]);
    expectSameAsFresh(dump, family);
    // Every piece is known now: the second read is a replay.
    expectSameAsFresh(dump, family);
    expectSameAsFresh(normaliseMark(dump), family);
  });

  it.each(dumps)('%s: after any edit, what reading it afresh gives', (_name, dump, family) => {
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 6 }), fc.boolean(), (edits, twice) => {
        forgetPieces();
        parseRuleset(dump, { family, reusePieces: true });
        const next = apply(dump, edits);
        expectSameAsFresh(next, family);
        if (twice) expectSameAsFresh(next, family);
        // And back: the edited text's pieces do not change what the original reads to.
        expectSameAsFresh(dump, family);
      }),
      { numRuns: 150 },
    );
  });

  it('replays the unchanged lines after an edit, and reads the changed ones', () => {
    const dump = clusterDump(4);
    const first = parseRuleset(dump, { reusePieces: true });
    // One Service's port changes: the pieces around its KUBE-SERVICES line are read anew, the
    // rest replayed (a replayed rule has the very matches its first reading compiled).
    const next = dump.replace('--dport 81 ', '--dport 8081 ');
    expect(next).not.toBe(dump);
    const second = parseRuleset(next, { reusePieces: true });
    const was = first.ruleset.tables.get('nat')?.ruleOrder ?? [];
    const now = second.ruleset.tables.get('nat')?.ruleOrder ?? [];
    expect(now.length).toBe(was.length);
    const readAnew = (r: (typeof now)[number], i: number) => r.matches !== was[i]?.matches;
    // Rules with state of their own (statistic, recent) are always compiled anew; of the others,
    // those in pieces the edit left as they were are replayed.
    const plain = now.filter((r) => r.matches.length > 0 && !r.stateful);
    const replayed = now.filter((r, i) => r.matches.length > 0 && !r.stateful && !readAnew(r, i));
    expect(replayed.length).toBeGreaterThan(plain.length / 2);
    // (A statistic chance alone in its rule is one frozen array for every rule with it, however
    // it was read: that it is the same says nothing.)
    const stateful = now.filter((r) => r.stateful && !Object.isFrozen(r.matches));
    expect(stateful.length).toBeGreaterThan(0);
    expect(now.filter((r, i) => stateful.includes(r) && !readAnew(r, i))).toEqual([]);
    expectSameAsFresh(next, 4);
  });
});

/**
 * Deferred chains (ParseOptions.deferChains): kube-proxy's per-Service chains found when the text
 * is read and compiled when first read give exactly the rules of an eager parse (every field but
 * where a rule's header row is), for any edit; a rule of a deferred chain that does not compile
 * throws when the chain is read, naming a line the eager parse reports an error on.
 */
describe('deferring the per-Service chains', () => {
  beforeEach(() => forgetPieces());

  function expectSameAsEager(text: string, family: 4 | 6, reusePieces: boolean): void {
    const eager = parseRuleset(text, { family });
    const deferred = parseRuleset(text, { family, reusePieces, deferChains: isPerServiceChain });
    let shape: unknown;
    try {
      shape = parseShape(deferred, { headerOffsets: false });
    } catch (e) {
      // What the parse said is what the eager one said, and the rule that threw is an error of it.
      expect(eager.diagnostics).toEqual(expect.arrayContaining(deferred.diagnostics));
      const line = Number(/line (\d+)/.exec(String(e))?.[1]);
      expect(eager.diagnostics.filter((d) => d.severity === 'error').map((d) => d.line)).toContain(
        line,
      );
      return;
    }
    expect(shape).toEqual(parseShape(eager, { headerOffsets: false }));
  }

  it.each(dumps)('%s: the same rules, compiled when first read', (_name, dump, family) => {
    const { ruleset, ok } = parseRuleset(dump, { family, deferChains: isPerServiceChain });
    expect(ok).toBe(true);
    const nat = ruleset.tables.get('nat');
    const svc = [...(nat?.chains.values() ?? [])].filter((c) => isPerServiceChain(c.name));
    expect(svc.length).toBeGreaterThan(3);
    // Nothing of them is compiled yet; reading one chain compiles it alone.
    const pending = (c: (typeof svc)[number]) => (c as unknown as { deferred: unknown }).deferred;
    expect(svc.every((c) => pending(c) !== null)).toBe(true);
    const first = svc[0] as (typeof svc)[number];
    expect(first.rules.length).toBeGreaterThan(0);
    expect(first.rules.map((r) => r.index)).toEqual(first.rules.map((_, i) => i + 1));
    expect(pending(first)).toBeNull();
    expect(svc.slice(1).every((c) => pending(c) !== null)).toBe(true);
    expectSameAsEager(dump, family, false);
    expectSameAsEager(dump, family, true);
    expectSameAsEager(dump, family, true);
  });

  it.each(dumps)('%s: after any edit, what an eager parse gives', (_name, dump, family) => {
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 6 }), fc.boolean(), (edits, pieces) => {
        forgetPieces();
        if (pieces) parseRuleset(dump, { family, reusePieces: true });
        expectSameAsEager(apply(dump, edits), family, pieces);
      }),
      { numRuns: 200 },
    );
  });

  it('inserts, flushes and counters on a deferred chain see its rules in order', () => {
    const chain = /^:(KUBE-SVC-\w+)/m.exec(referenceDump)?.[1] as string;
    const lines = [
      `-I ${chain} 2 -j RETURN`,
      `-I ${chain} -p udp -j RETURN`,
      `[3:180] -A ${chain} -j RETURN`,
      `-F ${chain}`,
    ];
    for (let n = 1; n <= lines.length; n++) {
      const text = referenceDump.replace(
        /\nCOMMIT\n(?![\s\S]*\*nat)/,
        `\n${lines.slice(0, n).join('\n')}\nCOMMIT\n`,
      );
      expect(text).not.toBe(referenceDump);
      expectSameAsEager(text, 4, false);
    }
  });

  it('a rule of a deferred chain that does not compile throws when the chain is read', () => {
    const chain = /^:(KUBE-SEP-\w+)/m.exec(referenceDump)?.[1] as string;
    const text = referenceDump.replace(`-A ${chain} `, `-A ${chain} -p tcp --dport 99999 `);
    const { ok, ruleset } = parseRuleset(text, { deferChains: isPerServiceChain });
    expect(ok).toBe(true);
    const line = text.split('\n').findIndex((l) => l.includes('99999')) + 1;
    expect(() => ruleset.tables.get('nat')?.chains.get(chain)?.rules).toThrow(
      new RegExp(`deferred chain ${chain}: line ${line}, column \\d+: .*99999`),
    );
  });
});
