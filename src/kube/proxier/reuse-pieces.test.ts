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
import { parseShape } from '../../engine/testing/ruleset-shape.ts';
import reference from './fixtures/reference-dump.json' with { type: 'json' };
import { endpoint, input, service, slice } from './fixtures/build.ts';
import { generateProxierRules } from './index.ts';

const referenceDump = generateProxierRules(
  setupToProxierInput(reference.setup as Setup, ['192.168.0.2'], 'IPv4'),
).dump;

/** Services with several endpoints (statistic), affinity (recent), NodePorts, Local policy. */
function clusterDump(family: 4 | 6): string {
  const ip = (k: number) => (family === 4 ? `10.1.${k >> 8}.${k & 255}` : `fd00:10::${k}`);
  const vip = (k: number) => (family === 4 ? `172.30.0.${k}` : `fd00:30::${k}`);
  const services = Array.from({ length: 12 }, (_, k) =>
    service({
      name: `svc-${k}`,
      clusterIP: vip(k + 1),
      type: k % 3 === 0 ? 'NodePort' : 'ClusterIP',
      ports: [
        {
          name: 'http',
          port: 80 + k,
          protocol: k % 4 === 1 ? 'UDP' : 'TCP',
          targetPort: 8080,
          nodePort: k % 3 === 0 ? 30000 + k : null,
        },
      ],
      externalTrafficPolicy: k % 6 === 0 ? 'Local' : 'Cluster',
      sessionAffinity: k % 5 === 2 ? { type: 'ClientIP', timeoutSeconds: 300 } : { type: 'None' },
    }),
  );
  const slices = services.map((s, k) =>
    slice(
      s,
      Array.from({ length: k % 4 }, (_, e) =>
        endpoint(ip(16 * k + e + 1), { nodeName: e % 2 ? 'node-a' : 'node-b' }),
      ),
      8080,
    ),
  );
  return generateProxierRules(input(services, slices, { ipFamily: family })).dump;
}

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

type Edit =
  | { op: 'delete' | 'dup' | 'crlf'; at: number }
  | { op: 'swap'; at: number; to: number }
  | { op: 'digit'; at: number; digit: number }
  | { op: 'insert'; at: number; line: number };

const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ op: fc.constantFrom('delete', 'dup', 'crlf'), at: fc.nat() }),
  fc.record({ op: fc.constant('swap'), at: fc.nat(), to: fc.nat() }),
  fc.record({ op: fc.constant('digit'), at: fc.nat(), digit: fc.integer({ min: 0, max: 9 }) }),
  fc.record({ op: fc.constant('insert'), at: fc.nat(), line: fc.nat(EXTRA.length - 1) }),
) as fc.Arbitrary<Edit>;

function apply(text: string, edits: readonly Edit[]): string {
  const lines = text.split('\n');
  for (const e of edits) {
    const at = e.at % lines.length;
    const line = lines[at] as string;
    if (e.op === 'delete') lines.splice(at, 1);
    else if (e.op === 'dup') lines.splice(at, 0, line);
    else if (e.op === 'crlf') lines[at] = `${line}\r`;
    else if (e.op === 'swap') {
      const to = e.to % lines.length;
      lines[at] = lines[to] as string;
      lines[to] = line;
    } else if (e.op === 'digit') lines[at] = line.replace(/\d/, String(e.digit));
    else if (e.op === 'insert') lines.splice(at, 0, EXTRA[e.line] as string);
    if (lines.length === 0) lines.push('');
  }
  return lines.join('\n');
}

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
    expect(now.filter((r, i) => r.stateful && !readAnew(r, i))).toEqual([]);
    expectSameAsFresh(next, 4);
  });
});
