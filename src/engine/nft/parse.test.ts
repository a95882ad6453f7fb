/** The nft reader: the three forms nft speaks, handles as the kernel gives them, errors that say where. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseNftRuleset, type NftRuleset } from '../index.ts';
import { REFUSED } from '../testing/nft-node.ts';

const data = (f: string) => readFileSync(new URL(`./testdata/${f}`, import.meta.url), 'utf8');

/** family table chain handle -> position, as the kernel listed them. */
function handles(rs: NftRuleset): string[] {
  const out: string[] = [];
  for (const t of rs.tables)
    for (const c of t.chains.values()) {
      out.push(`${t.family} ${t.name} ${c.name} #${c.handle}`);
      for (const r of c.rules) out.push(`${t.family} ${c.name} ${r.index}:${r.handle}`);
    }
  return out.sort();
}

function errors(text: string) {
  return parseNftRuleset(text).diagnostics.filter((d) => d.severity === 'error');
}

describe('forms of a ruleset', () => {
  const v4 = parseNftRuleset(data('trace-packet-v4.nft'));
  const v6 = parseNftRuleset(data('trace-packet-v6.nft'));
  const listed = parseNftRuleset(data('trace-packet-v4v6.list'));
  const json = parseNftRuleset(data('trace-packet-v4v6.json'));

  it("kube-proxy's transaction files load without a diagnostic", () => {
    expect(v4.diagnostics).toEqual([]);
    expect(v6.diagnostics).toEqual([]);
  });

  it('handles are allocated as the kernel allocated them (nft -a list ruleset)', () => {
    const kernel = handles(listed.ruleset);
    expect(kernel.length).toBeGreaterThan(100);
    expect(handles({ tables: [...v4.ruleset.tables, ...v6.ruleset.tables] })).toEqual(kernel);
  });

  it('the listing and the JSON give the same tables, chains, rules and handles', () => {
    expect(listed.diagnostics).toEqual([]);
    expect(json.diagnostics).toEqual([]);
    expect(handles(json.ruleset)).toEqual(handles(listed.ruleset));
  });

  it('named priorities resolve to numbers: dstnat - 10 is -110, srcnat is 100', () => {
    const t = listed.ruleset.tables.find((x) => x.family === 'ip');
    expect(t?.chains.get('filter-prerouting-pre-dnat')?.base).toMatchObject({
      type: 'filter',
      hook: 'prerouting',
      priority: -110,
      priorityText: 'dstnat - 10',
      policy: 'accept',
    });
    expect(t?.chains.get('nat-postrouting')?.base?.priority).toBe(100);
  });

  it('map elements keep their comments and verdicts; rules their comments', () => {
    const t = v4.ruleset.tables[0];
    const m = t?.sets.get('no-endpoint-services');
    expect(m?.kind).toBe('map');
    expect([...(m?.exact.values() ?? [])].map((e) => [e.comment, e.data])).toContainEqual([
      'ns6/svc6:p80',
      { code: 'goto', chain: 'reject-chain' },
    ]);
    const r = t?.chains.get('external-42NFTM6N-ns2/svc2/tcp/p80')?.rules[0];
    expect(r?.comment).toBe('short-circuit pod traffic');
    expect(r?.text).toBe(
      'ip saddr 10.0.0.0/8 goto service-42NFTM6N-ns2/svc2/tcp/p80 comment "short-circuit pod traffic"',
    );
  });
});

describe('transaction commands', () => {
  const base = `add table inet f
add chain inet f input { type filter hook input priority filter ; policy drop ; }
add rule inet f input tcp dport 22 accept
add rule inet f input tcp dport 80 accept
`;

  it('insert puts a rule first, position N after the rule with handle N', () => {
    const rs = parseNftRuleset(
      `${base}insert rule inet f input tcp dport 443 accept\nadd rule inet f input position 2 tcp dport 8080 accept\n`,
    ).ruleset;
    const rules = rs.tables[0]?.chains.get('input')?.rules ?? [];
    expect(rules.map((r) => `${r.index} ${r.handle} ${r.text}`)).toEqual([
      '1 4 tcp dport 443 accept',
      '2 2 tcp dport 22 accept',
      '3 5 tcp dport 8080 accept',
      '4 3 tcp dport 80 accept',
    ]);
  });

  it('numbers the rules by their place once the text is read, after inserts and deletes', () => {
    const inserts = Array.from(
      { length: 3 },
      (_, i) => `insert rule inet f input tcp dport ${i} drop`,
    );
    const rs = parseNftRuleset(`${base}${inserts.join('\n')}\ndelete rule inet f input handle 2\n`);
    const rules = rs.ruleset.tables[0]?.chains.get('input')?.rules ?? [];
    expect(rules.map((r) => `${r.index} ${r.text}`)).toEqual([
      '1 tcp dport 2 drop',
      '2 tcp dport 1 drop',
      '3 tcp dport 0 drop',
      '4 tcp dport 80 accept',
    ]);
  });

  it('replace, delete by handle, flush chain, delete element', () => {
    const rs = parseNftRuleset(`${base}replace rule inet f input handle 2 tcp dport 2222 accept
delete rule inet f input handle 3
add set inet f allow { type ipv4_addr ; flags interval ; elements = { 10.0.0.0/8, 192.168.1.1 } ; }
delete element inet f allow { 192.168.1.1 }
add chain inet f other
add rule inet f other counter
flush chain inet f other
`).ruleset;
    const t = rs.tables[0];
    expect(t?.chains.get('input')?.rules.map((r) => r.text)).toEqual(['tcp dport 2222 accept']);
    expect(t?.chains.get('other')?.rules).toEqual([]);
    expect(t?.sets.get('allow')?.exact.size).toBe(0);
    expect(t?.sets.get('allow')?.ranges.length).toBe(1);
  });

  it('a table block: chains, then sets, then rules get handles (nft_cmd_expand)', () => {
    const rs = parseNftRuleset(`table ip t {
  set s { type ipv4_addr ; }
  chain a { ip saddr @s drop ; }
  chain b { type filter hook input priority 0 ; jump a ; }
}`).ruleset;
    const t = rs.tables[0];
    expect([
      t?.chains.get('a')?.handle,
      t?.chains.get('b')?.handle,
      t?.sets.get('s')?.handle,
    ]).toEqual([1, 2, 3]);
    expect([t?.chains.get('a')?.rules[0]?.handle, t?.chains.get('b')?.rules[0]?.handle]).toEqual([
      4, 5,
    ]);
  });
});

describe('what is wrong, and where', () => {
  it('a jump to a chain that does not exist: at the chain name', () => {
    expect(
      errors('add table ip t\nadd chain ip t c\nadd rule ip t c tcp dport 80 jump nowhere\n'),
    ).toMatchObject([{ line: 3, column: 35, message: 'there is no chain nowhere in table ip t' }]);
  });

  it('a bad address: at the address, saying what an address looks like', () => {
    const [e] = errors(
      'add table ip t\nadd chain ip t c\nadd rule ip t c ip saddr 10.0.0.256 drop\n',
    );
    expect(e).toMatchObject({ line: 3, column: 26 });
    expect(e?.message).toContain('is not an IPv4 address');
  });

  it('an unclosed brace, a stray one', () => {
    expect(errors('table ip t {\n  chain c {\n    drop\n')).toMatchObject([
      { line: 2, column: 11 },
    ]);
    expect(errors('add table ip t\n}\n')).toMatchObject([{ line: 2, column: 1 }]);
  });

  it('a rule for a table that is not there', () => {
    expect(errors('add rule ip nope c drop\n')[0]?.message).toBe('there is no table ip nope');
  });

  it('a nat chain on the forward hook, as the kernel refuses it', () => {
    expect(
      errors('table ip t { chain c { type nat hook forward priority 0 ; } }')[0]?.message,
    ).toBe('a nat chain cannot hook forward');
  });

  it('a jump loop', () => {
    const e = errors(`table ip t {
  chain a { jump b ; }
  chain b { jump a ; }
}`);
    expect(e[0]?.message).toMatch(/^jump loop: /);
  });

  it('a loop past a long path, and 20,000 chains jumping in a line, without a stack overflow', () => {
    const loop = errors(`table ip t {
  chain a { jump b ; }
  chain b { jump c ; jump d ; }
  chain c { accept ; }
  chain d { jump b ; }
}`);
    expect(loop.map((x) => x.message)).toEqual(['jump loop: b -> d -> b']);
    const n = 20_000;
    const chains = Array.from(
      { length: n },
      (_, i) => `  chain c${i} { ${i < n - 1 ? `jump c${i + 1}` : 'accept'} ; }`,
    );
    const deep = errors(
      `table ip t {\n${chains.join('\n')}\n  chain in { type filter hook input priority 0 ; jump c0 ; }\n}\n`,
    );
    expect(deep.map((x) => [x.line, x.message])).toEqual([
      [n + 2, `chains reached from in nest ${n} levels deep; the kernel allows 16`],
    ]);
  });

  it('a prefix element in a set without flags interval', () => {
    expect(
      errors(
        'add table ip t\nadd set ip t s { type ipv4_addr ; }\nadd element ip t s { 10.0.0.0/8 }\n',
      )[0]?.message,
    ).toContain("no 'flags interval'");
  });

  it('a lookup of the wrong type', () => {
    expect(
      errors(`table ip t {
  set ports { type inet_service ; }
  chain c { ip daddr @ports drop ; }
}`)[0]?.message,
    ).toBe('@ports holds inet_service, but this rule looks up ipv4_addr');
  });

  it('JSON: a broken document, and an error inside an object, point into the JSON', () => {
    expect(errors('{"nftables": [')[0]?.message).toMatch(/^this is not valid JSON/);
    const e = errors(
      '{"nftables": [\n {"rule": {"family": "ip", "table": "t", "chain": "c", "expr": [{"accept": null}]}}]}',
    );
    expect(e[0]).toMatchObject({ line: 2, column: 2 });
  });

  it('what the lab cannot evaluate loads, with a warning where it is', () => {
    const r = parseNftRuleset(
      'table ip t { chain c { type filter hook input priority 0 ; tcp dport 22 limit rate 10/second accept ; } }',
    );
    expect(r.ok).toBe(true);
    expect(r.diagnostics).toMatchObject([{ severity: 'warning', line: 1, column: 73 }]);
    const stmts = r.ruleset.tables[0]?.chains.get('c')?.rules[0]?.stmts ?? [];
    expect(stmts.map((s) => s.kind)).toEqual(['test', 'unsupported']);
  });

  it('past the size bound: one diagnostic, nothing read', () => {
    const r = parseNftRuleset('add table ip t\n'.repeat(100), { maxBytes: 100 });
    expect(r.ok).toBe(false);
    expect(r.ruleset.tables).toEqual([]);
  });
});

describe('what the kernel refuses at load (nf_tables validation)', () => {
  // Linux 6.18: `nft -f` fails with "Could not process rule: Operation not supported" for each
  // (src/kernel/nft.kernel.test.ts loads them); `nft -c` does not notice.
  it('NAT outside a nat chain, reached through a jump', () => {
    expect(errors(REFUSED.dnatInFilter)[0]?.message).toBe(
      'the kernel refuses this rule: dnat to 10.0.0.1 works only in a nat chain, and f (type filter) reaches it',
    );
  });

  it('reject at postrouting; dnat at postrouting', () => {
    expect(errors(REFUSED.rejectAtPostrouting)[0]?.message).toMatch(
      /^the kernel refuses this rule: reject works only at/,
    );
    expect(errors(REFUSED.dnatAtPostrouting)[0]?.message).toMatch(
      /^the kernel refuses this rule: dnat to 10.0.0.1 works only at prerouting, output/,
    );
  });
});
