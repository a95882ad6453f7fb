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
