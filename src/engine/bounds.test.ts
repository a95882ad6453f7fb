/**
 * Hostile rulesets end in bounded time and memory with an honest answer: repeated pure chains
 * are walked once and their steps replayed (within a budget, then summarised), runaway walks stop with "cannot decide", enumerations say what they did not
 * compute.
 */
import { describe, expect, it } from 'vitest';
import { WALK_LIMITS } from './chain.ts';
import { enumerateOutcomes, parseRuleset } from './index.ts';
import { ENUMERATION_LIMITS } from './simulate.ts';
import { NODE, connect, lanNetwork, notation, table } from './testing/single-host.ts';

/** `n` chains, each jumping `twice` times to the next: 2^n rule visits walked naively. */
function ladder(n: number, extra: (i: number) => string[] = () => []): string {
  const chains = Array.from({ length: n }, (_, i) => `C${i + 1}`);
  const rules = ['-A INPUT -j C1'];
  for (let i = 1; i < n; i++)
    rules.push(...extra(i), `-A C${i} -j C${i + 1}`, `-A C${i} -j C${i + 1}`);
  return table('filter', ['INPUT ACCEPT [0:0]', ...chains], rules);
}

describe('chain walk bounds', () => {
  it('a chain entered twice is traced twice, as the kernel traces it', () => {
    const rules = table(
      'filter',
      ['INPUT ACCEPT [0:0]', 'COUNT'],
      ['-A INPUT -p tcp -j COUNT', '-A INPUT -p tcp -j COUNT', '-A COUNT -p udp -j DROP'],
    );
    const sim = connect(lanNetwork({ rules }), NODE, 22);
    expect(sim.outcome.kind).toBe('answered');
    const first = notation(sim, 'node').slice(0, 5);
    expect(first).toEqual([
      'filter:INPUT:rule:1:JUMP:COUNT',
      'filter:COUNT:return:',
      'filter:INPUT:rule:2:JUMP:COUNT',
      'filter:COUNT:return:',
      'filter:INPUT:policy:ACCEPT',
    ]);
    expect(sim.events.some((e) => e.explain.key === 'chain.repeat')).toBe(false);
  });

  it('40 chains that each jump twice to the next: answered, the deep walks traced in full', () => {
    const sim = connect(lanNetwork({ rules: ladder(40) }), NODE, 22);
    expect(sim.outcome.kind).toBe('answered');
    const repeats = sim.events
      .filter((e) => e.explain.key === 'chain.repeat')
      .map((e) => (e.type === 'return' ? e.chain : ''));
    // Replayed while the budget lasts (the deep chains' short walks); the shallow chains'
    // second walks (2^k steps) are each said in one summary step instead.
    expect(repeats.length).toBeGreaterThan(0);
    expect(repeats.length).toBeLessThan(39);
    expect(new Set(repeats)).toEqual(
      new Set(Array.from({ length: repeats.length }, (_, i) => `C${i + 2}`)),
    );
    // C40 is entered far more than once, each entry traced like the kernel's.
    const c40 = notation(sim, 'node').filter((l) => l === 'filter:C40:return:');
    expect(c40.length).toBeGreaterThan(64);
    expect(sim.events.length).toBeLessThan(WALK_LIMITS.replayed + 1_000);
  });

  it('a pure chain is walked again once the packet changed between the two jumps', () => {
    const rules = table(
      'filter',
      ['INPUT ACCEPT [0:0]', 'CHECK', 'OUTER'],
      [
        '-A INPUT -j OUTER',
        '-A OUTER -j CHECK',
        '-A OUTER -j MARK --set-xmark 0x1/0xffffffff',
        '-A OUTER -j CHECK',
        '-A CHECK -m mark --mark 0x1 -j DROP',
      ],
    );
    const sim = connect(lanNetwork({ rules }), NODE, 22);
    expect(sim.outcome.kind).toBe('timeout');
    expect(notation(sim, 'node')).toContain('filter:CHECK:rule:1:DROP');
    expect(sim.events.some((e) => e.explain.key === 'chain.repeat')).toBe(false);
  });

  it('an exponential walk with side effects stops with "cannot decide", not an exception', () => {
    // MARK makes every chain impure, so nothing is skipped: 2^40 steps without the bound.
    const rules = ladder(40, (i) => [`-A C${i} -j MARK --set-xmark 0x${i.toString(16)}/0xff`]);
    const sim = connect(lanNetwork({ rules }), NODE, 22);
    expect(sim.outcome.kind).toBe('unsupported');
    if (sim.outcome.kind === 'unsupported') expect(sim.outcome.what).toMatch(/more than/);
    expect(sim.events.length).toBeLessThanOrEqual(WALK_LIMITS.events + 10);
    expect(sim.events.at(-1)?.explain.key).toBe('limit.walk');
  });

  it('warns where iptables-nft refuses nesting deeper than nf_tables allows (15 levels)', () => {
    // Checked on Linux 6.18 with iptables-nft 1.8.9: 15 chains load, 16 do not.
    const ok = parseRuleset(ladder(15));
    expect(ok.diagnostics).toEqual([]);
    const deep = parseRuleset(ladder(16));
    const warn = deep.diagnostics.filter((d) => d.severity === 'warning');
    expect(warn).toHaveLength(1);
    // Line 1 *filter, 2 :INPUT, 3..18 chains, 19 the INPUT jump, then two rules per chain: the
    // first jump out of C15 (to C16, 16 levels down) is line 20 + 2 * 14 = 48.
    expect(warn[0]).toMatchObject({ line: 48, column: 8 });
    expect(warn[0]?.message).toMatch(/Too many links.*15 levels.*iptables-legacy loads it/);
    expect(deep.ok).toBe(true);
  });
});

describe('enumeration bounds', () => {
  it('2,000 random-branch rules: stops at a limit and says how much is not computed', () => {
    const rules = table(
      'mangle',
      ['PREROUTING ACCEPT [0:0]'],
      Array.from(
        { length: 2000 },
        (_, i) =>
          `-A PREROUTING -m statistic --mode random --probability 0.5 -j MARK --set-xmark 0x${(i + 1).toString(16)}/0xffffffff`,
      ),
    );
    const net = lanNetwork({ rules });
    const en = enumerateOutcomes(net, {
      kind: 'connect',
      from: 'client',
      proto: 'tcp',
      dst: NODE,
      dport: 22,
    });
    expect(en.truncated).toBe(true);
    expect(['steps', 'waiting', 'branches']).toContain(en.stoppedBy?.limit);
    expect(en.notComputed).toBeGreaterThan(0);
    expect(en.covered).toBeLessThan(0.01);
    const steps = en.runs.reduce((a, r) => a + r.events.length + r.choices.length, 0);
    // The last run may cross the budget; none after it is started.
    expect(steps).toBeLessThan(ENUMERATION_LIMITS.steps + 10_000);
    expect(en.runs.length).toBeLessThan(ENUMERATION_LIMITS.runs);
  });

  it('a complete enumeration covers all of the probability', () => {
    const rules = table(
      'filter',
      ['INPUT ACCEPT [0:0]'],
      [
        '-A INPUT -m statistic --mode random --probability 0.25 -j DROP',
        '-A INPUT -m statistic --mode random --probability 0.5 -j REJECT',
      ],
    );
    const en = enumerateOutcomes(lanNetwork({ rules }), {
      kind: 'connect',
      from: 'client',
      proto: 'tcp',
      dst: NODE,
      dport: 22,
    });
    expect(en).toMatchObject({ truncated: false, covered: 1, notComputed: 0, stoppedBy: null });
    expect(en.runs.map((r) => r.probability)).toEqual([0.25, 0.375, 0.375]);
  });

  it('past the branch limit, the runs found are kept and the rest is counted', () => {
    const rules = table(
      'filter',
      ['INPUT ACCEPT [0:0]'],
      Array.from({ length: 12 }, () => '-A INPUT -m statistic --mode random --probability 0.5'),
    );
    const en = enumerateOutcomes(
      lanNetwork({ rules }),
      { kind: 'connect', from: 'client', proto: 'tcp', dst: NODE, dport: 22 },
      { limit: 100 },
    );
    expect(en.runs).toHaveLength(100);
    expect(en.stoppedBy).toEqual({ limit: 'branches', count: 100 });
    expect(en.covered).toBeCloseTo(100 / 4096, 10);
    expect(en.notComputed).toBeGreaterThan(0);
  });
});
