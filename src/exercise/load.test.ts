import { describe, expect, it } from 'vitest';
import { valueOf } from '../engine/index.ts';
import { checkAnswer, checkExercise, editabilityProblems, loadExercise } from './index.ts';
import { exerciseText, SCENARIOS } from './testing.ts';

const GOAL = `- id: ssh
  text: { en: "sshd answers", zh: "sshd 应答" }
  from: client/laptop
  to: vip:22
  expect: { answeredBy: node/cp-1/sshd }`;

const where = (text: string) =>
  loadExercise(text, { scenarios: SCENARIOS }).diagnostics.map(
    (d) => `${d.line}:${d.column} ${d.field}: ${d.message}`,
  );

const lineOf = (text: string, needle: string) =>
  text.split('\n').findIndex((l) => l.includes(needle)) + 1;

describe('reading an exercise file', () => {
  it('names the line, column and field of a schema error, and what to do', () => {
    const text = exerciseText({ scenario: 'vip22-sshd-or-service', goals: GOAL }).replace(
      'difficulty: beginner',
      'difficulty: easy\nminuts: 5',
    );
    expect(where(text).sort()).toEqual([
      `${lineOf(text, 'difficulty')}:13 difficulty: 'easy' must be one of "beginner", "intermediate", "advanced"`,
      `${lineOf(text, 'minuts')}:1 minuts: 'minuts' is not a field of this part; check the spelling`,
    ]);
  });

  it('checks goals: the fields they need, unknown placeholders, unique ids', () => {
    const text = exerciseText({
      scenario: 'vip22-sshd-or-service',
      goals: `${GOAL.replace('node/cp-1/sshd', 'pod/web@$to-nod')}\n${GOAL}\n- id: empty\n  text: { en: "e", zh: "空" }\n  from: client/laptop\n  to: vip:22`,
    });
    expect(where(text)).toEqual([
      `${lineOf(text, 'id: empty')}:5 goals.2: needs at least one of expect, passes, never`,
    ]);
    const placeholders = exerciseText({
      scenario: 'vip22-sshd-or-service',
      goals: `${GOAL.replace('node/cp-1/sshd', 'pod/web@$to-nod')}\n${GOAL}`,
    });
    expect(where(placeholders)).toEqual([
      `${lineOf(placeholders, '$to-nod')}:27 goals.0.expect.answeredBy: '$to-nod' is not a placeholder; use $from, $from-node, $to-node`,
      `${lineOf(placeholders, 'id: ssh') + 5}:9 goals.1.id: goal id 'ssh' is used twice; ids must be unique`,
    ]);
  });

  it('names an unknown scenario or variant, and lists the ones there are', () => {
    const text = exerciseText({ scenario: 'vip-22', goals: GOAL });
    expect(where(text)[0]).toMatch(
      new RegExp(
        `^${lineOf(text, 'scenario:')}:13 start.scenario: no scenario 'vip-22'; scenarios are (\\S+, )*etp-cluster`,
      ),
    );
    const v = exerciseText({ scenario: 'vip22-sshd-or-service', variant: 'lb', goals: GOAL });
    expect(where(v)).toEqual([
      `${lineOf(v, 'variant:')}:12 start.variant: no variant 'lb'; variants are no-service, lb-service, deleted, etp-local, etp-local-pinned`,
    ]);
  });

  it('resolves the starting state: the variant, its manifests, what may be edited', () => {
    const exercise = valueOf(
      loadExercise(
        exerciseText({ scenario: 'vip22-sshd-or-service', variant: 'lb-service', goals: GOAL }),
        { scenarios: SCENARIOS },
      ),
    );
    expect(exercise?.start.editable).toEqual(['manifests']);
    expect(exercise?.start.manifests).toContain('name: lb-port22-test');
    expect(exercise?.start.fixed).toBe('');
  });
});

describe('what the learner may change', () => {
  const nodeConfig = `apiVersion: lab.hookpath.io/v1
kind: NodeConfig
metadata: { name: x }
spec:
  nodeSelector: { node-role: core }
  kubeProxy: { localhostNodePorts: false }
  rules: |
    *raw
    :PREROUTING ACCEPT [0:0]
    COMMIT
`;
  it('host rules and kube-proxy settings only when the exercise allows them', () => {
    expect(
      editabilityProblems(nodeConfig, ['manifests']).map((d) => [d.line, d.field, d.message]),
    ).toEqual([
      [
        7,
        'NodeConfig: spec.rules',
        'host rules and sysctls are fixed in this exercise; this exercise lets you change the Kubernetes objects',
      ],
      [
        6,
        'NodeConfig: spec.kubeProxy',
        'kube-proxy settings are fixed in this exercise; this exercise lets you change the Kubernetes objects',
      ],
    ]);
    expect(editabilityProblems(nodeConfig, ['hostRules', 'kubeProxy'])).toEqual([]);
  });

  it('fixed Kubernetes objects stay in the cluster but not in the answer', () => {
    const exercise = valueOf(
      loadExercise(
        exerciseText({
          scenario: 'nodeport-close-on-core-nodes',
          variant: 'open',
          editable: '[hostRules]',
          manifests: '# node settings here',
          goals: `- id: closed
  text: { en: "closed", zh: "关掉" }
  from: client/external
  to: nodeport/web@core-1
  expect: { outcome: timeout }`,
        }),
        { scenarios: SCENARIOS },
      ),
    );
    if (!exercise) throw new Error('no exercise');
    expect(exercise.start.fixed).toContain('kind: Deployment');
    expect(checkAnswer(exercise, exercise.start.manifests).goals[0]?.pass).toBe(false);
    const guard = nodeConfig
      .replace('  kubeProxy: { localhostNodePorts: false }\n', '')
      .replace('[0:0]\n', '[0:0]\n    -A PREROUTING -p tcp --dport 30080 -j DROP\n');
    const ok = checkAnswer(exercise, guard);
    expect(ok.diagnostics).toEqual([]);
    expect(ok.solved).toBe(true);
    const service = 'apiVersion: v1\nkind: Service\nmetadata: { name: web }\nspec: {}\n';
    const r = checkAnswer(exercise, service);
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]).toMatchObject({
      line: 2,
      message:
        'the Kubernetes objects are fixed here (shown read-only); this exercise lets you change host rules and sysctls (NodeConfig spec.rules, spec.sysctls)',
    });
  });

  it('a broken answer is reported where it is broken, and no goal is checked', () => {
    const exercise = valueOf(
      loadExercise(
        exerciseText({ scenario: 'vip22-sshd-or-service', variant: 'lb-service', goals: GOAL }),
        { scenarios: SCENARIOS },
      ),
    );
    if (!exercise) throw new Error('no exercise');
    const text = exercise.start.manifests.replace('targetPort: 80', 'targetPort: 800000');
    const r = checkAnswer(exercise, text);
    expect(r).toMatchObject({ ok: false, goals: [], solved: false });
    expect(r.diagnostics[0]).toMatchObject({ source: 'manifests', line: lineOf(text, '800000') });
  });
});

describe('an exercise with its own cluster (no scenario)', () => {
  const text = `title: { en: "Inline", zh: "内联" }
task: { en: "Reach sshd.", zh: "连上 sshd。" }
takeaway: { en: "Done.", zh: "完成。" }
topics: [hook-order]
difficulty: beginner
minutes: 3
start:
  cluster:
    nodes:
      - name: n1
        ip: 192.168.50.38
        processes: [{ name: sshd, listen: "0.0.0.0:22" }]
    clients: [{ name: laptop, ip: 192.168.50.10 }]
  manifests: |
    # nothing yet
goals:
  - id: ssh
    text: { en: "sshd answers", zh: "sshd 应答" }
    from: client/laptop
    to: node/n1:22
    expect: { answeredBy: node/n1/sshd }
  - id: web
    text: { en: "a web pod answers on 30080", zh: "30080 上有 web Pod 应答" }
    from: client/laptop
    to: nodeport/web@n1
    expect: { outcome: answered }
hints: [{ en: "Add a NodePort Service.", zh: "加一个 NodePort Service。" }]
solutions:
  - title: { en: "A pod and a NodePort", zh: "一个 Pod 加一个 NodePort" }
    manifests: |
      apiVersion: v1
      kind: Pod
      metadata: { name: web, labels: { app: web } }
      spec:
        nodeName: n1
        containers: [{ name: web, image: nginx, ports: [{ containerPort: 8080 }] }]
      ---
      apiVersion: v1
      kind: Service
      metadata: { name: web }
      spec:
        type: NodePort
        selector: { app: web }
        ports: [{ port: 80, targetPort: 8080, nodePort: 30080 }]
`;
  it('is validated against the scenario format, and checks like the others', () => {
    const exerciseRead = loadExercise(text);
    const exercise = valueOf(exerciseRead);
    const { diagnostics } = exerciseRead;
    expect(diagnostics).toEqual([]);
    if (!exercise) throw new Error('no exercise');
    const c = checkExercise(exercise);
    expect(c.start.goals.map((g) => [g.id, g.pass])).toEqual([
      ['ssh', true],
      ['web', false],
    ]);
    expect(c.start.goals[1]?.failures[0]?.instead.en).toBe("no Service named 'web'.");
    expect(c.ok).toBe(true);
    const bad = where(text.replace('ip: 192.168.50.38', 'ip: 192.168.50'));
    expect(bad).toEqual([
      expect.stringMatching(
        /^11:13 start\.cluster\.nodes\.0\.ip: '192\.168\.50' does not have the expected form/,
      ),
    ]);
  });
});
