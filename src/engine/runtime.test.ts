/** A host takes the parse its caller already made of its rules file (the CLI's `--rules`). */
import { describe, expect, it } from 'vitest';
import { buildNetwork, parseRuleset, type HostSpec, type ParseResult } from './index.ts';

const RULES = '*filter\n:INPUT DROP [0:0]\n-A INPUT -p tcp --dport 22 -j ACCEPT\nCOMMIT\n';

const host = (rules: string): HostSpec => ({
  name: 'h',
  interfaces: [{ name: 'eth0', addresses: ['10.0.0.1/24'] }],
  rules,
});

describe('buildNetwork with rules parsed beforehand', () => {
  it('uses that parse instead of reading the rules again', () => {
    const parsed = parseRuleset(RULES);
    const { network } = buildNetwork(
      { hosts: [host(RULES)] },
      { parsed: new Map([[RULES, parsed]]) },
    );
    expect(network?.hosts.get('h')?.ruleset).toBe(parsed.ruleset);
  });

  it('parses the text itself when the given parse is of another family or text', () => {
    const v6 = parseRuleset(RULES, { family: 6 });
    const other = parseRuleset('*filter\n:INPUT ACCEPT [0:0]\nCOMMIT\n');
    const known = new Map<string, ParseResult>([[RULES, v6]]);
    const a = buildNetwork({ hosts: [host(RULES)] }, { parsed: known }).network;
    const rs = a?.hosts.get('h')?.ruleset;
    expect(rs).not.toBe(v6.ruleset);
    expect(rs?.family).toBe(4);
    expect(rs?.tables.get('filter')?.chains.get('INPUT')?.policy).toBe('DROP');
    const b = buildNetwork({ hosts: [host(RULES)] }, { parsed: new Map([['x', other]]) });
    expect(b.network?.hosts.get('h')?.ruleset).not.toBe(other.ruleset);
  });
});

describe('host configs kept by content between builds', () => {
  const spec = (address: string, metric?: number): HostSpec => ({
    name: 'h',
    interfaces: [{ name: 'eth0', addresses: [address] }],
    routes: [{ to: '10.9.0.0/16', via: '10.0.0.254', ...(metric === undefined ? {} : { metric }) }],
  });
  const hostOf = (s: HostSpec) => buildNetwork({ hosts: [s] }).network?.hosts.get('h');

  it('an equal host is not read again; an edited address or route is', () => {
    const a = hostOf(spec('10.0.0.1/24'));
    expect(hostOf(spec('10.0.0.1/24'))?.config).toBe(a?.config);
    const moved = hostOf(spec('10.0.0.2/24'))?.config;
    expect(moved?.local.has('10.0.0.2')).toBe(true);
    expect(moved?.local.has('10.0.0.1')).toBe(false);
    expect(hostOf(spec('10.0.0.1/24', 5))?.config.routes.find((r) => !r.connected)?.metric).toBe(5);
  });

  it('values JSON cannot tell apart still make different hosts', () => {
    const nan = hostOf(spec('10.0.0.1/24', Number.NaN))?.config;
    const none = hostOf(spec('10.0.0.1/24'))?.config;
    expect(nan).not.toBe(none);
    expect(nan?.routes.find((r) => !r.connected)?.metric).toBeNaN();
    expect(none?.routes.find((r) => !r.connected)?.metric).toBe(0);
  });
});

describe('host configs are not kept forever', () => {
  const pod = (i: number, round: number): HostSpec => ({
    name: `p${i}`,
    interfaces: [{ name: 'eth0', addresses: [`10.${round}.${i >> 8}.${i & 255}/32`] }],
  });
  const build = (round: number, extra: HostSpec[] = []) =>
    buildNetwork({ hosts: [...Array.from({ length: 300 }, (_, i) => pod(i, round)), ...extra] })
      .network;

  it('a host no recent network had is built anew; one every network has is kept', () => {
    const kept: HostSpec = {
      name: 'kept',
      interfaces: [{ name: 'eth0', addresses: ['10.200.0.1/24'] }],
    };
    const first = build(1, [kept]);
    for (let round = 2; round <= 6; round++) build(round, [kept]);
    const again = build(1, [kept]);
    expect(again?.hosts.get('p0')?.config).not.toBe(first?.hosts.get('p0')?.config);
    expect(again?.hosts.get('kept')?.config).toBe(first?.hosts.get('kept')?.config);
  });
});
