/**
 * `-m physdev` as xt_physdev.c evaluates it. The cases with bridge ports are exercised on the
 * real kernel by scenarios/bridge-pod-network.yaml (node-1's PHYS-* chains); here the matcher's
 * corners one by one, and the rule checks iptables-restore makes.
 */
import { describe, expect, it } from 'vitest';
import { parseRuleset } from '../parse.ts';
import { physdev } from './physdev.ts';
import type { MatchCtx, PhysDevs } from '../../match-context.ts';
import type { CompileCx, Matcher, ModuleSpec } from '../extension.ts';
import type { Rule } from '../types.ts';

/** Compiles `-m physdev` with `words` (e.g. `! --physdev-in veth+`) into its matcher. */
function compile(words: string, chain = 'FORWARD'): Matcher {
  const options: ModuleSpec['options'][number][] = [];
  const toks = words.split(/\s+/).filter(Boolean);
  for (let i = 0; i < toks.length; i++) {
    const negated = toks[i] === '!';
    if (negated) i++;
    const name = toks[i] as string;
    const args = name === '--physdev-in' || name === '--physdev-out' ? [toks[++i] as string] : [];
    options.push({ name, negated, args, column: 1 });
  }
  const added: Matcher[] = [];
  const cx = {
    rule: { chain } as Rule,
    add: (m: Matcher | { unsupported: string }) => {
      if (typeof m === 'function') added.push(m);
    },
  } as unknown as CompileCx;
  physdev.compile({ name: 'physdev', implicit: false, options, column: 1 }, cx);
  return added[0] as Matcher;
}

const ctx = (phys?: PhysDevs) => ({ ...(phys ? { phys } : {}) }) as unknown as MatchCtx;
const NONE = ctx();
const UP = ctx({ in: 'veth1', out: null });
const BRIDGED = ctx({ in: 'veth1', out: 'veth2' });

describe('-m physdev', () => {
  it('without bridge info only fully negated rules match', () => {
    expect(compile('--physdev-is-bridged')(NONE)).toBe(false);
    expect(compile('! --physdev-is-bridged')(NONE)).toBe(true);
    expect(compile('! --physdev-is-in ! --physdev-out veth+')(NONE)).toBe(true);
    expect(compile('! --physdev-is-in --physdev-out veth+')(NONE)).toBe(false);
    expect(compile('--physdev-in veth1')(NONE)).toBe(false);
  });

  it('--physdev-is-bridged means "has an out port": FORWARD/POSTROUTING of a bridged frame', () => {
    expect(compile('--physdev-is-bridged')(BRIDGED)).toBe(true);
    expect(compile('--physdev-is-bridged')(UP)).toBe(false);
    expect(compile('! --physdev-is-bridged')(UP)).toBe(true);
    expect(compile('--physdev-is-in ! --physdev-is-out')(UP)).toBe(true);
  });

  it('compares names like -i, with + as a prefix wildcard', () => {
    expect(compile('--physdev-in veth+ --physdev-out veth2')(BRIDGED)).toBe(true);
    expect(compile('--physdev-in veth2')(BRIDGED)).toBe(false);
    expect(compile('! --physdev-in veth2')(BRIDGED)).toBe(true);
    expect(compile('--physdev-out eth+')(BRIDGED)).toBe(false);
  });

  it('a missing in port passes --physdev-in, a missing out port fails --physdev-out either way', () => {
    const noIn = ctx({ in: null, out: 'veth2' });
    expect(compile('--physdev-in eth0')(noIn)).toBe(true);
    expect(compile('! --physdev-in eth0')(noIn)).toBe(true);
    expect(compile('--physdev-out veth2')(UP)).toBe(false);
    expect(compile('! --physdev-out veth2')(UP)).toBe(false);
  });

  it('refuses what iptables-restore refuses, with the column and a way out', () => {
    const r = parseRuleset(
      '*filter\n:OUTPUT ACCEPT [0:0]\n-A OUTPUT -m physdev --physdev-out veth0 -j DROP\nCOMMIT\n',
    );
    const d = r.diagnostics.find((x) => x.severity === 'error');
    expect(d).toMatchObject({ line: 3, column: 22 });
    expect(d?.message).toContain('only supported in the FORWARD and POSTROUTING chains');
    expect(d?.hint).toContain('--physdev-is-bridged');
    const ok = parseRuleset(
      '*filter\n:OUTPUT ACCEPT [0:0]\n-A OUTPUT -m physdev --physdev-is-bridged --physdev-out veth0 -j DROP\nCOMMIT\n',
    );
    expect(ok.diagnostics.filter((x) => x.severity === 'error')).toEqual([]);
    const bare = parseRuleset(
      '*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -m physdev -j DROP\nCOMMIT\n',
    );
    expect(bare.diagnostics.find((x) => x.severity === 'error')?.message).toContain(
      'physdev needs one of',
    );
  });
});
