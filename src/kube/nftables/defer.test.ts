/**
 * Deferred nft chains (NftParseOptions.deferChains): the `add rule` lines of kube-proxy's
 * per-Service chains, left uncompiled while the text is read and compiled when the chain's rules
 * are first read, give exactly the eager parse's ruleset (every handle, anonymous-set name, rule
 * field and statement, the table's conntrack use) and diagnostics, for any edit of the text. A
 * deferred rule that does not compile throws when its chain is read, naming a line the eager
 * parse reports.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseNftRuleset } from '../../engine/index.ts';
import { applyLineEdits, lineEdit, type LineEdit } from '../../engine/testing/line-edits.ts';
import { nftParseShape } from '../../engine/testing/ruleset-shape.ts';
import { mixedCluster } from '../proxier/fixtures/build.ts';
import { generateNftablesRules, isPerServiceNftChain } from './index.ts';

const clusterText = (family: 4 | 6): string => generateNftablesRules(mixedCluster(family));

const texts: [string, string][] = [
  ['12 Services', clusterText(4)],
  ['12 Services, IPv6', clusterText(6)],
];

/**
 * Lines an edit puts in; CHAIN and OTHER become per-Service chains of the text. Commands that
 * read or change a deferred chain, lines the sketch declines, and mistakes the checks catch:
 * missing targets, loops, NAT a hook refuses, statements that do not compile.
 */
const EXTRA = [
  'flush chain ip kube-proxy CHAIN',
  'delete chain ip kube-proxy CHAIN',
  'insert rule ip kube-proxy CHAIN drop',
  'add rule ip kube-proxy CHAIN index 0 accept',
  'delete rule ip kube-proxy CHAIN handle 9',
  'add rule ip kube-proxy CHAIN jump OTHER',
  'add rule ip kube-proxy CHAIN goto CHAIN',
  'add rule ip kube-proxy CHAIN jump nowhere',
  'add rule ip kube-proxy CHAIN jump services',
  'add rule ip kube-proxy CHAIN numgen random mod 2 vmap { 0 : goto OTHER , 1 : drop }',
  'add rule ip kube-proxy CHAIN ip daddr { 10.0.0.1, 10.0.0.2 } accept',
  'add rule ip kube-proxy CHAIN ct state new accept',
  'add rule ip kube-proxy CHAIN masquerade',
  'add rule ip kube-proxy CHAIN reject',
  'add rule ip kube-proxy CHAIN meta bogus 1 accept',
  'add rule ip kube-proxy CHAIN ip daddr 10.0.0.300 accept',
  'add rule ip kube-proxy CHAIN counter comment "edited"',
  'add chain ip kube-proxy CHAIN { type nat hook input priority 0 ; }',
  'add chain ip kube-proxy CHAIN { type filter hook forward priority 0 ; }',
  'add rule ip kube-proxy filter-forward jump CHAIN',
  'add rule ip kube-proxy nat-prerouting jump CHAIN',
  'delete table ip kube-proxy',
  'flush ruleset',
  'add rule ip kube-proxy  CHAIN  accept',
  '# a comment',
  '',
];

const edit = lineEdit(EXTRA.length);

function perServiceChains(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/^add chain ip6? kube-proxy (\S+)$/gm))
    if (isPerServiceNftChain(m[1] as string)) out.add(m[1] as string);
  return [...out];
}

function apply(text: string, edits: readonly LineEdit[]): string {
  const chains = perServiceChains(text);
  const fam = text.includes('add table ip6 ') ? 'ip6' : 'ip';
  return applyLineEdits(text, edits, (e) =>
    (EXTRA[e.line] as string)
      .replaceAll(' ip kube-proxy', ` ${fam} kube-proxy`)
      .replaceAll('CHAIN', chains[e.chain % chains.length] as string)
      .replaceAll('OTHER', chains[e.other % chains.length] as string),
  );
}

function expectSameAsEager(text: string): void {
  const eager = parseNftRuleset(text);
  const deferred = parseNftRuleset(text, { deferChains: isPerServiceNftChain });
  let shape: unknown;
  try {
    shape = nftParseShape(deferred);
  } catch (e) {
    // Only a rule the eager parse has something to say about throws, and the parse said no
    // more than the eager one.
    expect(eager.diagnostics).toEqual(expect.arrayContaining(deferred.diagnostics));
    const line = Number(/line (\d+)/.exec(String(e))?.[1]);
    expect(eager.diagnostics.map((d) => d.line)).toContain(line);
    return;
  }
  expect(shape).toEqual(nftParseShape(eager));
}

describe('deferring the per-Service nft chains', () => {
  it.each(texts)('%s: the same ruleset, each chain compiled when first read', (_name, text) => {
    const { ruleset, ok } = parseNftRuleset(text, { deferChains: isPerServiceNftChain });
    expect(ok).toBe(true);
    const chains = [...(ruleset.tables[0]?.chains.values() ?? [])].filter((c) =>
      isPerServiceNftChain(c.name),
    );
    expect(chains.length).toBeGreaterThan(10);
    const waiting = (c: (typeof chains)[number]) => (c as unknown as { waiting: boolean }).waiting;
    // Lines with set references (affinity) are compiled at once; all others wait.
    const pending = chains.filter(waiting);
    expect(pending.length).toBeGreaterThan(chains.length / 2);
    const first = pending[0] as (typeof chains)[number];
    expect(first.rules.length).toBeGreaterThan(0);
    expect(waiting(first)).toBe(false);
    expect(pending.slice(1).every(waiting)).toBe(true);
    expectSameAsEager(text);
  });

  it.each(texts)(
    '%s: a ct line waits, an affinity line compiles it, later lines wait anew',
    (_n, text) => {
      // Found by the property below (seed 349074010): the lines that waited before an affinity
      // line (a set reference: compiled at once, after them) used conntrack, the lines waiting
      // after it do not; reading the chain then threw "its conntrack use was sketched wrong".
      const name = /^add rule ip6? kube-proxy (service-\S+) ip6? saddr @affinity-/m.exec(text)?.[1];
      expect(name).toBeDefined();
      const fam = text.includes('add table ip6 ') ? 'ip6' : 'ip';
      const declared = `add chain ${fam} kube-proxy ${name}\n`;
      expect(text).toContain(declared);
      const edited = text.replace(
        declared,
        `${declared}add rule ${fam} kube-proxy ${name} ct state new accept\n`,
      );
      expectSameAsEager(edited);
      const deferred = parseNftRuleset(edited, { deferChains: isPerServiceNftChain });
      const chain = deferred.ruleset.tables[0]?.chains.get(name as string);
      expect(chain?.rules[0]?.text).toContain('ct state new accept');
    },
  );

  it.each(texts)('%s: after any edit, what an eager parse gives', (_name, text) => {
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 5 }), (edits) => {
        expectSameAsEager(apply(text, edits));
      }),
      { numRuns: 300 },
    );
  });

  it('takes conntrack and checks hooks for rules not compiled yet', () => {
    const text = (hook: string) =>
      [
        'add table ip t',
        'add chain ip t service-AAAAAAAA-web',
        `add chain ip t base { type nat hook ${hook} priority 100 ; }`,
        'add rule ip t base jump service-AAAAAAAA-web',
        'add rule ip t service-AAAAAAAA-web meta l4proto tcp dnat to 10.0.0.1:80',
        '',
      ].join('\n');
    const ok = parseNftRuleset(text('output'), { deferChains: isPerServiceNftChain });
    // Only the deferred dnat takes conntrack: without it no packet would be tracked.
    expect(ok.ruleset.tables[0]?.conntrack).toBe(true);
    expect(
      (ok.ruleset.tables[0]?.chains.get('service-AAAAAAAA-web') as unknown as { waiting: boolean })
        .waiting,
    ).toBe(true);
    expectSameAsEager(text('output'));
    // dnat reached from postrouting: the kernel refuses it, as the eager parse says.
    const refused = parseNftRuleset(text('postrouting'), { deferChains: isPerServiceNftChain });
    expect(refused.diagnostics.map((d) => d.message)).toEqual([
      'the kernel refuses this rule: dnat to 10.0.0.1:80 works only at prerouting, output, and base (hook postrouting) reaches it',
    ]);
    expectSameAsEager(text('postrouting'));
  });

  it('reads a text with errors in deferred lines again, for the eager diagnostics', () => {
    const text = clusterText(4);
    const chain = perServiceChains(text)[0] as string;
    const bad = `${text}add rule ip kube-proxy ${chain} jump nowhere\n`;
    const r = parseNftRuleset(bad, { deferChains: isPerServiceNftChain });
    expect(r.ok).toBe(false);
    expect(r.diagnostics).toEqual(parseNftRuleset(bad).diagnostics);
    expect(r.diagnostics[0]?.message).toMatch(/there is no chain nowhere/);
  });

  it('throws when a deferred rule that does not compile is read', () => {
    const text = clusterText(4);
    const chain = perServiceChains(text)[0] as string;
    const lineNo = text.split('\n').length;
    const bad = `${text}add rule ip kube-proxy ${chain} ip daddr 10.0.0.300 accept\n`;
    const r = parseNftRuleset(bad, { deferChains: isPerServiceNftChain });
    expect(r.ok).toBe(true);
    const c = r.ruleset.tables[0]?.chains.get(chain);
    expect(() => c?.rules).toThrow(
      new RegExp(`deferred chain ${chain}: line ${lineNo}, column \\d+`),
    );
  });
});
