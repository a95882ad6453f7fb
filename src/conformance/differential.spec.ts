/**
 * Differential check of the engine (issue 13) against main's engine: the baseline tree is taken
 * from git (`HOOKPATH_BASELINE`; by default main when the parse-speed work began, b14724e, whose
 * engine this check had already found identical to the one before the second edition, 6a3b60a)
 * and both parse and run the same inputs. Parsed rules (canonical text, positions,
 * targets, policies, diagnostics, the serialized dump) and whole traces (every event, outcome
 * and branch probability) must be identical: on the upstream conformance corpus, every scenario's
 * nodes and probes, and fast-check generated rulesets and packets.
 *
 * Not part of `npm test` (it needs the git history and takes a minute): `npm run test:differential`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkProbe } from '../cluster/expect.ts';
import { clusterOf } from '../cluster/lab.ts';
import { loadScenario, type LoadedScenario } from '../cluster/scenario.ts';
import * as engine from '../engine/index.ts';
import { lanNetwork, table } from '../engine/testing/single-host.ts';
import { generateProxierRules } from '../kube/proxier/index.ts';
import { runFlows, type Flow } from './flows.ts';
import { setupToProxierInput } from './setup.ts';

const ROOT = join(import.meta.dirname, '../..');
const BASELINE = process.env.HOOKPATH_BASELINE ?? 'b14724e729b649e7aff86f576d3462dcfdbc86c4';
const CORPUS =
  process.env.HOOKPATH_CONFORMANCE ?? join(ROOT, '../shared/conformance/kube-proxy-iptables.json');

type Engine = typeof engine;
interface Old {
  engine: Engine;
  checkProbe: typeof checkProbe;
  clusterOf: typeof clusterOf;
  loadScenario: typeof loadScenario;
  lanNetwork: typeof lanNetwork;
}
let old: Old;

/** The baseline's src/ under node_modules/.cache so its own imports (yaml, ...) resolve. */
function extractBaseline(): string {
  const dir = join(ROOT, 'node_modules/.cache/hookpath-baseline', BASELINE);
  if (!existsSync(join(dir, 'src/engine/index.ts'))) {
    mkdirSync(dir, { recursive: true });
    const tar = execFileSync('git', ['-C', ROOT, 'archive', BASELINE, 'src'], {
      maxBuffer: 1 << 28,
    });
    execFileSync('tar', ['-x', '-C', dir], { input: tar });
  }
  return join(dir, 'src');
}

beforeAll(async () => {
  const src = extractBaseline();
  old = {
    engine: (await import(join(src, 'engine/index.ts'))) as Engine,
    checkProbe: (
      (await import(join(src, 'cluster/expect.ts'))) as { checkProbe: typeof checkProbe }
    ).checkProbe,
    clusterOf: ((await import(join(src, 'cluster/lab.ts'))) as { clusterOf: typeof clusterOf })
      .clusterOf,
    loadScenario: (
      (await import(join(src, 'cluster/scenario.ts'))) as { loadScenario: typeof loadScenario }
    ).loadScenario,
    lanNetwork: (
      (await import(join(src, 'engine/testing/single-host.ts'))) as {
        lanNetwork: typeof lanNetwork;
      }
    ).lanNetwork,
  };
}, 120000);

/** Everything a reader of the parse sees: rules, positions, targets, policies, problems, text. */
function parsed(e: Engine, text: string, family: 4 | 6): Record<string, unknown> {
  const r = e.parseRuleset(text, { family });
  const chains: string[] = [];
  for (const t of r.ruleset.tables.values())
    for (const c of t.chains.values())
      chains.push(
        `${t.name}/${c.name}/${c.policy}/${c.policyText}/${c.declared}/${c.builtin}/${c.line}:` +
          c.rules
            .map((x) => `${x.index}@${x.line} ${x.targetName}:${x.targetColumn} ${x.text}`)
            .join('|'),
      );
  return { ok: r.ok, diagnostics: r.diagnostics, dump: e.serializeRuleset(r.ruleset), chains };
}

function sameParse(text: string, family: 4 | 6 = 4): void {
  const a = parsed(old.engine, text, family);
  const b = parsed(engine, text, family);
  if (JSON.stringify(a) !== JSON.stringify(b)) expect({ text, ...b }).toEqual({ text, ...a });
}

describe('parse: new and baseline engine agree', () => {
  it('on the upstream conformance corpus (static dumps, generated rules, reference dumps)', () => {
    const d = JSON.parse(readFileSync(CORPUS, 'utf8')) as {
      constants: { testNodeIP: string };
      cases: {
        ipFamily?: string;
        dump?: string;
        setup?: unknown;
        nodeIPs?: string[];
      }[];
      referenceDumps?: { dump: string }[];
    };
    let n = 0;
    for (const c of d.cases) {
      const fam = c.ipFamily === 'IPv6' ? 6 : 4;
      const text = c.dump
        ? c.dump
        : c.setup
          ? generateProxierRules(
              setupToProxierInput(
                c.setup as never,
                c.nodeIPs ?? [d.constants.testNodeIP],
                c.ipFamily as never,
              ),
            ).dump
          : null;
      if (text === null) continue;
      sameParse(text, fam);
      n++;
    }
    for (const r of d.referenceDumps ?? []) {
      sameParse(r.dump.replace(/^\n/, ''));
      n++;
    }
    expect(n).toBeGreaterThan(40);
  });

  it('on the flows of the upstream conformance corpus (every result)', async () => {
    const d = JSON.parse(readFileSync(CORPUS, 'utf8')) as {
      constants: { testNodeIP: string };
      cases: {
        ipFamily: 'IPv4' | 'IPv6';
        dump: string | null;
        setup?: unknown;
        nodeIPs?: string[];
        localAddresses: string[];
        flows: Flow[];
      }[];
    };
    const src = extractBaseline();
    const oldRun = (
      (await import(join(src, 'conformance/flows.ts'))) as { runFlows: typeof runFlows }
    ).runFlows;
    let flows = 0;
    for (const c of d.cases) {
      const fam = c.ipFamily === 'IPv6' ? 6 : 4;
      const rules =
        c.dump ??
        generateProxierRules(
          setupToProxierInput(c.setup as never, c.nodeIPs ?? [d.constants.testNodeIP], c.ipFamily),
        ).dump;
      const a = oldRun(rules, c.localAddresses, c.flows, fam);
      const b = runFlows(rules, c.localAddresses, c.flows, fam);
      expect(b).toEqual(a);
      flows += b.length;
    }
    expect(flows).toBe(246);
  });

  it('on generated rule lines, valid and not (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.array(ruleLine, { maxLength: 8 }),
        fc.boolean(),
        fc.constantFrom(4 as const, 6 as const),
        (lines, nat, fam) =>
          sameParse([...(nat ? NAT : FILTER), ...lines, 'COMMIT', ''].join('\n'), fam),
      ),
      { numRuns: 5000 },
    );
    fc.assert(
      fc.property(fc.array(anyLine, { maxLength: 12 }), (lines) => sameParse(lines.join('\n'))),
      { numRuns: 2000 },
    );
  });
});

const scenarioFiles = readdirSync(join(ROOT, 'scenarios'))
  .filter((f) => f.endsWith('.yaml'))
  .sort();

describe('scenarios: same rules on every node, same traces for every probe', () => {
  it('has scenarios', () => expect(scenarioFiles.length).toBeGreaterThan(5));
  for (const file of scenarioFiles) {
    const source = readFileSync(join(ROOT, 'scenarios', file), 'utf8');
    // The baseline predates kube-proxy's IPVS mode: such a scenario has nothing to compare with.
    if (/\bmode:\s*ipvs\b/.test(source)) {
      it.skip(`${file} [skipped: IPVS mode is newer than the baseline engine]`, () => {});
      continue;
    }
    it(file, () => {
      const text = source;
      const loadedNew = engine.valueOf(loadScenario(text));
      // A baseline older than the Result shape returns { scenario, diagnostics }.
      const oldRead = old.loadScenario(text) as
        ReturnType<typeof loadScenario> | { scenario: LoadedScenario | null };
      const loadedOld = 'scenario' in oldRead ? oldRead.scenario : engine.valueOf(oldRead);
      if (!loadedNew || !loadedOld) throw new Error(`${file} does not load`);
      const variants = [undefined, ...(loadedNew.def.variants ?? []).map((v) => v.id)];
      let probes = 0;
      for (const v of variants) {
        const a = old.clusterOf(loadedOld, v, undefined);
        const b = clusterOf(loadedNew, v, undefined);
        if (!a.cluster || !b.cluster) throw new Error(`${file} ${v}: no cluster`);
        for (const node of b.cluster.spec.nodes) sameParse(b.cluster.rulesOf(node.name) ?? '');
        b.probes.forEach((probe, i) => {
          const ra = old.checkProbe(a.cluster!, a.probes[i]!);
          const rb = checkProbe(b.cluster!, probe);
          expect({ variant: v, probe: probe.name, got: rb.got, runs: rb.runs }).toEqual({
            variant: v,
            probe: probe.name,
            got: ra.got,
            runs: ra.runs,
          });
          probes++;
        });
      }
      expect(probes).toBeGreaterThan(0);
    });
  }
});

describe('verdicts: generated rulesets and packets give the same traces (fast-check)', () => {
  it('filter and nat rules on a node, a client connecting to it', () => {
    let loaded = 0;
    fc.assert(
      fc.property(
        fc.array(validRule('filter'), { maxLength: 6 }),
        fc.array(validRule('nat'), { maxLength: 6 }),
        fc.constantFrom('tcp' as const, 'udp' as const),
        fc.constantFrom('192.168.1.10', '10.96.0.1', '192.168.1.77'),
        fc.constantFrom(22, 80, 30080, 53),
        (filter, nat, proto, dst, dport) => {
          const rules =
            table(
              'filter',
              ['INPUT ACCEPT [0:0]', 'FORWARD ACCEPT [0:0]', 'OUTPUT ACCEPT [0:0]', 'X'],
              filter,
            ) +
            table(
              'nat',
              [
                'PREROUTING ACCEPT [0:0]',
                'INPUT ACCEPT [0:0]',
                'OUTPUT ACCEPT [0:0]',
                'POSTROUTING ACCEPT [0:0]',
                'X',
              ],
              nat,
            );
          const probe = { kind: 'connect', from: 'client', proto, dst, dport } as const;
          const traceOf = (e: Engine, net: engine.Network) =>
            e.enumerateOutcomes(net, probe).runs.map((r) => ({
              p: r.probability,
              outcome: r.outcome,
              events: r.events,
            }));
          const attempt = (f: () => unknown) => {
            try {
              return f();
            } catch (e) {
              return { error: (e as Error).message };
            }
          };
          const a = attempt(() => traceOf(old.engine, old.lanNetwork({ rules })));
          const b = attempt(() => traceOf(engine, lanNetwork({ rules })));
          if (JSON.stringify(a) !== JSON.stringify(b))
            expect({ rules, b }).toEqual({ rules, b: a });
          if (!(a as object | null) || !('error' in (a as object))) loaded++;
        },
      ),
      { numRuns: 3000 },
    );
    // The generator writes rules iptables-restore accepts: nearly every case is a trace.
    expect(loaded).toBeGreaterThan(2700);
  });
});

/** Rule lines iptables-restore accepts, drawn from what kube-proxy and the scenarios write. */
function validRule(t: 'filter' | 'nat'): fc.Arbitrary<string> {
  const chain = fc.constantFrom(...(t === 'nat' ? ['PREROUTING', 'OUTPUT', 'X'] : ['INPUT', 'X']));
  const match = fc.constantFrom(
    '',
    '-p tcp --dport 22',
    '-p tcp -m tcp --dport 80',
    '-p udp --dport 53',
    '-p tcp -m multiport --dports 22,80,30000:32767',
    '-s 192.168.1.0/24',
    '! -s 192.168.1.20/32',
    '-d 10.96.0.1/32',
    '-i eth0',
    '! -i lo',
    '-m addrtype --dst-type LOCAL',
    '-m addrtype ! --dst-type LOCAL',
    '-m conntrack --ctstate NEW',
    '-m conntrack --ctstate INVALID',
    '-m state --state ESTABLISHED,RELATED',
    '-m mark --mark 0x4000/0x4000',
    '-m statistic --mode random --probability 0.5',
    '-m statistic --mode nth --every 2 --packet 0',
    '-m comment --comment "kube svc"',
    '-p tcp -m tcp --tcp-flags SYN,ACK SYN',
    '-m iprange --src-range 192.168.1.1-192.168.1.30',
    '-m pkttype --pkt-type unicast',
  );
  const targets =
    t === 'nat'
      ? [
          'ACCEPT',
          'RETURN',
          'X',
          'MARK --set-xmark 0x4000/0x4000',
          'DNAT --to-destination 192.168.1.10:22',
          'DNAT --to-destination 192.168.1.10',
          'REDIRECT --to-ports 22',
        ]
      : [
          'ACCEPT',
          'DROP',
          'RETURN',
          'X',
          'REJECT',
          'REJECT --reject-with tcp-reset',
          'REJECT --reject-with icmp-port-unreachable',
          'MARK --set-xmark 0x1/0xffffffff',
          'LOG --log-prefix "x "',
        ];
  return fc
    .tuple(chain, match, match, fc.constantFrom(...targets), fc.boolean())
    .map(([c, m1, m2, target, goto]) => {
      // A chain that jumps to itself would be a loop iptables-restore refuses.
      const tgt = c === 'X' && target === 'X' ? 'RETURN' : target;
      const both = m1 === m2 ? m1 : `${m1} ${m2}`;
      const protos = both.match(/-p /g)?.length ?? 0;
      // Two -p options are refused; a NAT port needs one (the baseline refuses both the same way).
      if (protos > 1) return `-A ${c} ${m1} -j ${tgt}`.replace(/ +/g, ' ');
      const proto = protos === 0 && /:\d|REDIRECT|tcp-reset/.test(tgt) ? '-p tcp' : '';
      if (/tcp-reset/.test(tgt) && both.includes('-p udp')) return `-A ${c} ${both} -j DROP`;
      return `-A ${c} ${proto} ${both} ${goto && tgt === 'X' ? '-g' : '-j'} ${tgt}`.replace(
        / +/g,
        ' ',
      );
    });
}

const WORDS = [
  '-A',
  '-I',
  '-N',
  '-F',
  '-X',
  '-P',
  '-c',
  '1',
  '2',
  '-j',
  '-g',
  '-m',
  '-p',
  '-s',
  '-d',
  '-i',
  '-o',
  '-f',
  '!',
  '--dport',
  '--sport',
  '--comment',
  '"',
  '"a b"',
  'tcp',
  'udp',
  'icmp',
  'sctp',
  'all',
  '0',
  'ACCEPT',
  'DROP',
  'RETURN',
  'DNAT',
  'SNAT',
  'MASQUERADE',
  'REDIRECT',
  'REJECT',
  'MARK',
  'CONNMARK',
  'LOG',
  'CT',
  'NOTRACK',
  '--notrack',
  'TRACE',
  'KUBE-SVC-X',
  'INPUT',
  'PREROUTING',
  'POSTROUTING',
  'OUTPUT',
  'COMMIT',
  '*nat',
  '*filter',
  '*raw',
  '*mangle',
  ':X',
  '-',
  '[0:0]',
  '10.0.0.0/8',
  'fd00::1',
  '10.0.0.1,10.0.0.2',
  '80',
  '30000:32767',
  '90:80',
  'statistic',
  '--mode',
  'random',
  'nth',
  '--every',
  '--packet',
  '--probability',
  '0.5',
  '""',
  'conntrack',
  '--ctstate',
  'NEW',
  '--ctdir',
  'ORIGINAL',
  '--ctorigdst',
  '--ctstatus',
  'SEEN_REPLY',
  'state',
  '--state',
  'mark',
  '--mark',
  '0x4000/0x4000',
  '0xzz',
  '--set-xmark',
  '--or-mark',
  '--save-mark',
  '--mask',
  '--to-destination',
  '1.2.3.4:80',
  ':22',
  '--to-source',
  '--to-ports',
  '6000-6100',
  '--random-fully',
  '--reject-with',
  'tcp-reset',
  'icmp-host-prohibited',
  'bogus',
  'addrtype',
  '--dst-type',
  'LOCAL',
  '--src-type',
  '--limit-iface-in',
  '--limit-iface-out',
  'recent',
  '--name',
  '--rcheck',
  '--set',
  '--seconds',
  '--reap',
  'multiport',
  '--dports',
  '--ports',
  '1,2,3',
  '--tcp-flags',
  'SYN,ACK',
  'SYN',
  '--syn',
  '--icmp-type',
  'echo-request',
  '3/3',
  'set',
  '--match-set',
  'S',
  'src,dst',
  'iprange',
  '--src-range',
  '1.1.1.1-1.1.1.9',
  'pkttype',
  '--pkt-type',
  'unicast',
  'physdev',
  '--physdev-in',
  'eth0+',
  'lo',
  '--log-prefix',
  'x',
  '--destination-port',
  '--source',
  '--protocol',
  '--jump',
  '--goto',
  '--match',
  'comment',
  'hashlimit',
  '--foo',
  // What decides whether a word needs quotes (the tokenizer's one-pass check): tabs, quotes,
  // backslashes, white space and letters outside ASCII.
  '\t',
  '"tab\there"',
  "o'k",
  'a\\b',
  '"q\\"x"',
  'é',
  '"\u00a0"',
  'x\u3000y',
  '\r',
];
const word = fc.oneof(fc.constantFrom(...WORDS), fc.string({ maxLength: 5 }));
const CHAINS = ['INPUT', 'X', 'PREROUTING', 'POSTROUTING', 'OUTPUT', 'FORWARD'];
const ruleLine = fc
  .array(word, { maxLength: 12 })
  .map((w) => `-A ${CHAINS[w.length % CHAINS.length]} ${w.join(' ')}`);
const anyLine = fc.oneof(
  ruleLine,
  fc.array(word, { maxLength: 10 }).map((w) => w.join(' ')),
);
const NAT = [
  '*nat',
  ':PREROUTING ACCEPT [0:0]',
  ':INPUT ACCEPT [0:0]',
  ':OUTPUT ACCEPT [0:0]',
  ':POSTROUTING ACCEPT [0:0]',
  ':X - [0:0]',
  ':KUBE-SVC-X - [0:0]',
];
const FILTER = [
  '*filter',
  ':INPUT DROP [0:0]',
  ':FORWARD ACCEPT [0:0]',
  ':OUTPUT ACCEPT [0:0]',
  ':X - [0:0]',
  ':KUBE-SVC-X - [0:0]',
];
