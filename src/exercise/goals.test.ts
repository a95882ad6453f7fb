/**
 * Each kind of goal, holding and failing, with the sentence that says what the packet did
 * instead (English and Chinese, told from the trace).
 */
import { valueOf } from '../engine/index.ts';
import { describe, expect, it } from 'vitest';
import { checkAnswer, loadExercise, type GoalReport } from './index.ts';
import { exerciseText, SCENARIOS } from './testing.ts';

function goals(opts: Parameters<typeof exerciseText>[0], answer?: string): GoalReport[] {
  const exerciseRead = loadExercise(exerciseText(opts), { scenarios: SCENARIOS });
  const exercise = valueOf(exerciseRead);
  const { diagnostics } = exerciseRead;
  expect(diagnostics).toEqual([]);
  if (!exercise) throw new Error('no exercise');
  const r = checkAnswer(exercise, answer ?? exercise.start.manifests);
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return [...r.goals];
}

const vip = (variant: string, goal: string) =>
  goals({ scenario: 'vip22-sshd-or-service', variant, goals: goal });

describe('goals on outcomes', () => {
  it('answered by a process: holds without the Service, fails with it, saying where the DNAT was', () => {
    const goal = `- id: ssh
  text: { en: "sshd answers", zh: "sshd 应答" }
  from: client/laptop
  to: vip:22
  expect: { answeredBy: node/cp-1/sshd }`;
    expect(vip('no-service', goal)[0]).toMatchObject({ pass: true, pairs: 1, failures: [] });
    const [g] = vip('lb-service', goal);
    expect(g?.pass).toBe(false);
    expect(g?.failures[0]?.why).toEqual({
      en: 'expected an answer from node/cp-1/sshd',
      zh: '期望由 node/cp-1/sshd 应答',
    });
    expect(g?.failures[0]?.instead.en).toMatch(
      /^cp-1 DNATed it in nat PREROUTING \(KUBE-SEP-\w+\): 192\.168\.50\.100:22 → 10\.244\.1\.10:80; so the routing decision forwarded it \(FORWARD\), never to INPUT; cp-1 masqueraded it to 192\.168\.50\.38 .*; pod nettest-\S+ on worker-1 answered \(it saw source 192\.168\.50\.38\)\.$/,
    );
    expect(g?.failures[0]?.instead.zh).toMatch(
      /^cp-1 在 nat PREROUTING（KUBE-SEP-\w+）里做了 DNAT：192\.168\.50\.100:22 → 10\.244\.1\.10:80；于是路由判定把它转发出去（FORWARD），不会进入 INPUT；.*最后由 worker-1 上的 Pod nettest-\S+ 应答（它看到的源地址是 192\.168\.50\.38）。$/,
    );
  });

  it('outcome timeout / refused / answered, one or a list', () => {
    const goal = (outcome: string, to = 'vip:22') => `- id: g
  text: { en: "g", zh: "目标" }
  from: client/laptop
  to: ${to}
  expect: { outcome: ${outcome} }`;
    expect(vip('etp-local', goal('timeout'))[0]?.pass).toBe(true);
    const [t] = vip('etp-local', goal('answered'));
    expect(t?.failures[0]?.why.en).toBe('expected an answer');
    expect(t?.failures[0]?.instead.en).toContain(
      'cp-1 dropped it in filter INPUT (KUBE-EXTERNAL-SERVICES rule 1: "default/lb-port22-test has no local endpoints")',
    );
    expect(t?.failures[0]?.instead.zh).toContain('它在 cp-1 的 filter INPUT 被丢弃');
    expect(vip('no-service', goal('refused', 'node/cp-1:23'))[0]?.pass).toBe(true);
    const [r] = vip('no-service', goal('[timeout]', 'node/cp-1:23'));
    expect(r?.failures[0]?.why.en).toBe('expected a timeout (silently dropped)');
    expect(r?.failures[0]?.instead.en).toContain(
      'nothing listens on 192.168.50.38:23 in cp-1, so its kernel answered with a reset',
    );
    expect(vip('no-service', goal('[refused, timeout]', 'node/cp-1:23'))[0]?.pass).toBe(true);
  });

  it('source seen, and the reply', () => {
    const goal = `- id: src
  text: { en: "client address", zh: "客户端地址" }
  from: client/laptop
  to: vip:22
  expect: { srcSeen: client/laptop }
- id: reply
  text: { en: "ssh banner", zh: "ssh 横幅" }
  from: client/laptop
  to: vip:22
  expect: { reply: "SSH-2.0" }`;
    expect(vip('etp-local-pinned', goal).map((g) => g.pass)).toEqual([true, false]);
    const [src, reply] = vip('lb-service', goal);
    expect(src?.failures[0]?.why.en).toBe(
      'expected the answering side to see source client/laptop (192.168.50.10)',
    );
    expect(src?.failures[0]?.instead.en).toContain('cp-1 masqueraded it to 192.168.50.38');
    expect(reply?.failures[0]?.instead.en).toMatch(/It said "HTTP\/1\.0 200 OK"\.$/);
    expect(vip('no-service', goal).map((g) => g.pass)).toEqual([true, true]);
  });

  it('a sender or destination that does not exist fails the goal with the reason', () => {
    const [g] = vip(
      'no-service',
      `- id: g
  text: { en: "g", zh: "目标" }
  from: client/laptop
  to: lb/forgejo
  expect: { outcome: answered }`,
    );
    expect(g?.failures[0]).toMatchObject({
      to: 'lb/forgejo',
      why: { en: 'cannot send client/laptop → lb/forgejo' },
      instead: { en: "no Service named 'forgejo'." },
    });
  });
});

describe('goals on the split between endpoints', () => {
  const goal = `- id: even
  text: { en: "a third each", zh: "各三分之一" }
  from: client/client
  to: lb/web:80
  expect: { split: { pod/pod-1: 0.333, pod/pod-2: 0.333, pod/pod-3: 0.333 } }`;
  it('fails with the shares the connections really took', () => {
    const [g] = goals({
      scenario: 'etp-local-load-balancer-split',
      variant: 'local-bgp',
      goals: goal,
    });
    expect(g?.failures[0]?.instead).toEqual({
      en: 'The connections went: pod pod-1 on node-a 50 %, pod pod-2 on node-b 25 %, pod pod-3 on node-b 25 %.',
      zh: '实际的分配：node-a 上的 Pod pod-1 50 %，node-b 上的 Pod pod-2 25 %，node-b 上的 Pod pod-3 25 %。',
    });
  });
  it('holds when the shares match (to a few digits)', () => {
    const [g] = goals({
      scenario: 'etp-local-load-balancer-split',
      variant: 'cluster-bgp',
      goals: goal,
    });
    expect(g?.pass).toBe(true);
  });
});

describe('goals on the trace', () => {
  const guard = `- id: raw-drop
  text: { en: "dropped in raw PREROUTING on core-1", zh: "在 core-1 的 raw PREROUTING 被丢弃" }
  from: client/external
  to: nodeport/web@core-1
  passes:
    - { host: core-1, table: raw, hook: PREROUTING, verdict: DROP }
- id: no-dnat
  text: { en: "never DNATed", zh: "没有 DNAT" }
  from: client/external
  to: nodeport/web@core-1
  never:
    - { target: DNAT }`;
  const scenario = 'nodeport-close-on-core-nodes';
  it('passes / never hold when the guard drops the packet before nat', () => {
    expect(goals({ scenario, variant: 'c-raw-guard', goals: guard }).map((g) => g.pass)).toEqual([
      true,
      true,
    ]);
  });
  it('fail without the guard: what was expected, what it met, what it did', () => {
    const [passes, never] = goals({ scenario, variant: 'open', goals: guard });
    expect(passes?.failures[0]?.why).toEqual({
      en: 'expected a DROP in raw PREROUTING on core-1 on the way',
      zh: '期望途中经过 core-1 上 raw PREROUTING 的 DROP',
    });
    expect(never?.failures[0]?.why.en).toMatch(
      /^expected no DNAT, but it met nat:KUBE-SEP-\w+ rule 2 \(DNAT\) on core-1$/,
    );
    expect(never?.failures[0]?.why.zh).toMatch(
      /^期望途中没有 DNAT，但它经过了 core-1 上 nat:KUBE-SEP-\w+ 的第 2 条规则（DNAT）$/,
    );
    expect(never?.failures[0]?.instead.en).toContain('core-1 DNATed it in nat PREROUTING');
  });
  it('a chain prefix, a rule text, and the reply packet', () => {
    const g = `- id: g
  text: { en: "g", zh: "目标" }
  from: client/host
  to: nodeport/echo-local@svc-test-worker
  passes:
    - { chain: KUBE-SVL-*, host: svc-test-worker }
    - { rule: "has no local endpoints", packet: request }`;
    const [r] = goals({
      scenario: 'etp-cluster-vs-local-source-ip',
      variant: 'nodeports',
      goals: g,
    });
    expect(r?.failures[0]?.why.en).toBe(
      'expected a rule containing "has no local endpoints" (the request packet) on the way',
    );
    const reply = `- id: g
  text: { en: "g", zh: "目标" }
  from: client/host
  to: nodeport/echo-cluster@svc-test-control-plane
  passes:
    - { host: svc-test-control-plane, packet: reply }`;
    expect(
      goals({ scenario: 'etp-cluster-vs-local-source-ip', variant: 'nodeports', goals: reply })[0]
        ?.pass,
    ).toBe(true);
    const [broken] = goals({
      scenario: 'etp-cluster-vs-local-source-ip',
      variant: 'no-snat',
      goals: reply,
    });
    expect(broken?.failures[0]?.why.en).toBe(
      'expected host svc-test-control-plane (the reply packet) on the way',
    );
    expect(broken?.failures[0]?.instead.en).toMatch(
      /the answer reached host from 10\.244\.\d\.10:8080, an address it never connected to, so host reset it\.$/,
    );
  });
});

describe('goals over senders × destinations, with placeholders', () => {
  const own = `- id: own
  text: { en: "own agent", zh: "本节点的代理" }
  from: [pod/app-1, pod/app-2, pod/train-job]
  to: svc/log-agent:24224
  expect: { answeredBy: pod/log-agent@$from-node, srcSeen: $from }`;
  it('holds only when every pair holds; failing pairs are listed', () => {
    expect(
      goals({
        scenario: 'internal-traffic-policy-local',
        variant: 'agent-everywhere',
        goals: own,
      })[0],
    ).toMatchObject({ pass: true, pairs: 3 });
    const [g] = goals({
      scenario: 'internal-traffic-policy-local',
      variant: 'gpu-node-without-agent',
      goals: own,
    });
    expect(g?.pairs).toBe(3);
    expect(g?.failures.map((f) => [f.from, f.why.en])).toEqual([
      ['pod/train-job', 'expected an answer'],
    ]);
  });
  it('$to-node is the node a destination is on; $from-node may name a destination', () => {
    const g = `- id: own-pod
  text: { en: "own pod", zh: "本节点的 Pod" }
  from: client/host
  to: [nodeport/echo-local@svc-test-worker, nodeport/echo-local@svc-test-worker2]
  expect: { answeredBy: pod/echo@$to-node }
- id: localhost
  text: { en: "localhost", zh: "本机" }
  from: [node/svc-test-worker, node/svc-test-worker2]
  to: localhost-nodeport/echo-local@$from-node
  expect: { outcome: answered }`;
    const r = goals({ scenario: 'etp-cluster-vs-local-source-ip', variant: 'nodeports', goals: g });
    expect(r.map((x) => [x.pass, x.pairs])).toEqual([
      [true, 2],
      [true, 2],
    ]);
  });
});
