/** Property tests: random and mutated nft input never crashes the reader or the engine, and errors say where. */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildNetwork, parseNftRuleset, simulate } from '../index.ts';
import { KUBE_PROXY_NFT, NODE_IP, nftNodeNetwork } from '../testing/nft-node.ts';

const LISTED = readFileSync(new URL('./testdata/trace-packet-v4v6.list', import.meta.url), 'utf8');
const JSON_DUMP = readFileSync(
  new URL('./testdata/trace-packet-v4v6.json', import.meta.url),
  'utf8',
);

const WORDS = [
  'add',
  'insert',
  'delete',
  'flush',
  'table',
  'chain',
  'rule',
  'set',
  'map',
  'element',
  'ip',
  'ip6',
  'inet',
  't',
  'c',
  '{',
  '}',
  ';',
  ',',
  ':',
  '.',
  '=',
  '\n',
  '(',
  ')',
  '|',
  'type',
  'filter',
  'nat',
  'route',
  'hook',
  'prerouting',
  'input',
  'output',
  'priority',
  'dstnat',
  '-',
  '10',
  '-110',
  'policy',
  'accept',
  'drop',
  'jump',
  'goto',
  'return',
  'saddr',
  'daddr',
  'tcp',
  'dport',
  'th',
  'meta',
  'l4proto',
  'mark',
  'ct',
  'state',
  'new',
  'fib',
  'local',
  'vmap',
  '@s',
  'numgen',
  'random',
  'mod',
  '2',
  'dnat',
  'to',
  '10.0.0.1:80',
  'masquerade',
  'fully-random',
  'reject',
  'with',
  'icmpx',
  'counter',
  'comment',
  '"x"',
  'elements',
  'flags',
  'interval',
  'ipv4_addr',
  'inet_service',
  'verdict',
  '10.0.0.0/8',
  'fd00::1',
  '[fd00::1]:80',
  '!=',
  '==',
  'and',
  'or',
  '0x4000',
  'update',
  'limit',
  '# handle 3',
];

function checkDiagnostics(text: string): void {
  const r = parseNftRuleset(text);
  const lines = text.split('\n');
  for (const d of r.diagnostics) {
    expect(d.line, d.message).toBeGreaterThanOrEqual(1);
    expect(d.line, d.message).toBeLessThanOrEqual(Math.max(1, lines.length));
    expect(d.column, d.message).toBeGreaterThanOrEqual(1);
    expect(d.column, d.message).toBeLessThanOrEqual((lines[d.line - 1] ?? '').length + 1);
    expect(d.message.length).toBeGreaterThan(0);
  }
  if (r.diagnostics.some((d) => d.severity === 'error')) expect(r.ok).toBe(false);
}

const soup = fc.array(fc.oneof(fc.constantFrom(...WORDS), fc.string({ maxLength: 5 })), {
  maxLength: 60,
});

/** A mutation of a valid ruleset: replace, delete or insert at a character position. */
const mutation = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom('delete', 'insert', 'replace'),
  what: fc.oneof(fc.constantFrom(...WORDS), fc.string({ maxLength: 3 })),
});

function mutate(text: string, muts: readonly { at: number; kind: string; what: string }[]): string {
  let s = text;
  for (const m of muts) {
    const i = m.at % (s.length + 1);
    if (m.kind === 'delete') s = s.slice(0, i) + s.slice(i + 1 + (m.at % 7));
    else if (m.kind === 'insert') s = `${s.slice(0, i)} ${m.what} ${s.slice(i)}`;
    else s = `${s.slice(0, i)}${m.what}${s.slice(i + m.what.length)}`;
  }
  return s;
}

describe('the nft reader under random input', () => {
  it('token soup: never throws, every diagnostic points inside the text', () => {
    fc.assert(
      fc.property(soup, (words) => checkDiagnostics(words.join(' '))),
      { numRuns: 400 },
    );
  });

  it('mutated kube-proxy rulesets (transaction and listed forms): same', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(KUBE_PROXY_NFT, LISTED),
        fc.array(mutation, { minLength: 1, maxLength: 4 }),
        (t, m) => checkDiagnostics(mutate(t, m)),
      ),
      { numRuns: 150 },
    );
  });

  it('mutated JSON: never throws', () => {
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (m) =>
        checkDiagnostics(mutate(JSON_DUMP, m)),
      ),
      { numRuns: 100 },
    );
  });

  it('JSON of any shape inside the nftables array: never throws', () => {
    const item = fc.dictionary(
      fc.constantFrom('table', 'chain', 'rule', 'set', 'map', 'element', 'x'),
      fc.anything({ maxDepth: 3 }),
      { maxKeys: 1 },
    );
    fc.assert(
      fc.property(fc.array(item, { maxLength: 6 }), (items) =>
        checkDiagnostics(JSON.stringify({ nftables: items })),
      ),
      { numRuns: 200 },
    );
  });

  it('any text: never throws', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (s) => checkDiagnostics(s)),
    );
  });

  it('errors keep their place: lines prepended move every diagnostic by as many lines', () => {
    fc.assert(
      fc.property(
        fc.array(mutation, { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 5 }),
        (m, k) => {
          const text = mutate(KUBE_PROXY_NFT, m);
          const a = parseNftRuleset(text).diagnostics;
          const b = parseNftRuleset(`${'# moved\n'.repeat(k)}${text}`).diagnostics;
          expect(b.map((d) => [d.line - k, d.column, d.message])).toEqual(
            a.map((d) => [d.line, d.column, d.message]),
          );
        },
      ),
      { numRuns: 100 },
    );
  });

  it('nesting is bounded: a thousand open braces give one error, quickly', () => {
    const r = parseNftRuleset(`table ip t ${'{ '.repeat(1000)}`);
    expect(r.ok).toBe(false);
    expect(r.diagnostics).toHaveLength(1);
  });
});

describe('the engine under mutated nft rulesets', () => {
  it('a probe through a mutated ruleset ends with an outcome, never an exception', () => {
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (m) => {
        const { network } = buildNetwork(nftNodeNetwork(mutate(KUBE_PROXY_NFT, m)));
        if (!network) return;
        const sim = simulate(network, {
          kind: 'connect',
          from: 'client',
          proto: 'tcp',
          dst: NODE_IP,
          dport: 30080,
        });
        expect(sim.outcome.kind).toBeTypeOf('string');
      }),
      { numRuns: 60 },
    );
  });
});
