/**
 * Bad scenarios are refused with the place (line, column, field) and a sentence that says what is
 * wrong; nothing is dropped silently.
 */
import { describe, expect, it } from 'vitest';
import { checkProbe } from './expect.ts';
import { clusterOf, runLab } from './lab.ts';
import { loadScenario, type ProbeDef } from './scenario.ts';
import { MINI_SCENARIO, miniWith } from './testing/mini-scenario.ts';
import { valueOf, type Diagnostic } from '../engine/index.ts';

function errors(text: string): Diagnostic[] {
  return loadScenario(text).diagnostics.filter((d) => d.severity === 'error');
}

/** Errors of the scenario, then of its cluster as the first variant builds it. */
function allErrors(text: string): Diagnostic[] {
  const scenarioRead = loadScenario(text);
  const scenario = valueOf(scenarioRead);
  const { diagnostics } = scenarioRead;
  const built = scenario ? clusterOf(scenario, undefined, undefined).diagnostics : [];
  return [...diagnostics, ...built].filter((d) => d.severity === 'error');
}

describe('addresses and prefixes', () => {
  it('a /33 prefix is refused at its place', () => {
    const [e] = errors(miniWith('lan: 192.168.50.0/24', 'lan: 192.168.50.0/33'));
    expect(e).toMatchObject({ line: 4, column: 8, field: 'cluster.lan' });
    expect(e?.message).toContain('/33 is not a prefix length; an IPv4 prefix is /0 to /32');
  });

  it('octets above 255 are refused', () => {
    const [e] = errors(miniWith('ip: 192.168.50.39', 'ip: 192.168.50.390'));
    expect(e).toMatchObject({ line: 17, field: 'cluster.nodes.1.ip' });
    expect(e?.message).toContain('not an IPv4 address');
  });

  it('two nodes with the same IP: the second is refused and the first is named', () => {
    const [e] = errors(miniWith('ip: 192.168.50.39', 'ip: 192.168.50.38'));
    expect(e).toMatchObject({ line: 17, column: 11, field: 'cluster.nodes.1.ip' });
    expect(e?.message).toContain('192.168.50.38 is already the address of node cp-1');
  });

  it('a client and a node with one name are refused', () => {
    const [e] = errors(miniWith('name: laptop', 'name: worker-1'));
    expect(e).toMatchObject({ line: 19, field: 'cluster.clients.0.name' });
    expect(e?.message).toContain('already the node at cluster.nodes.1.name');
  });

  it('a listening port out of range is refused', () => {
    const [e] = errors(miniWith('0.0.0.0:22', '0.0.0.0:99999'));
    expect(e).toMatchObject({ line: 10, field: 'cluster.nodes.0.processes.0.listen' });
    expect(e?.message).toContain('the port must be 1 to 65535');
  });
});

describe('service CIDR', () => {
  it('/32 leaves nothing to allocate: refused at the field, not Services silently dropped', () => {
    const [e] = errors(miniWith('serviceCIDR: 10.96.0.0/12', 'serviceCIDR: 10.96.0.0/32'));
    expect(e).toMatchObject({ line: 5, column: 16, field: 'cluster.serviceCIDR' });
    expect(e?.message).toContain('leaves no ClusterIP to allocate');
  });

  it('a range wider than /12 is refused as the API server refuses it', () => {
    const [e] = errors(miniWith('serviceCIDR: 10.96.0.0/12', 'serviceCIDR: 10.0.0.0/8'));
    expect(e?.message).toContain('the mask must be >= 12');
  });

  it('/30: the one free address goes to the first Service, the second Service is refused', () => {
    const text = miniWith('serviceCIDR: 10.96.0.0/12', 'serviceCIDR: 10.96.0.0/30').replace(
      '  ---\n  apiVersion: apps/v1',
      '  ---\n  apiVersion: v1\n  kind: Service\n  metadata: { name: api }\n  spec:\n    type: NodePort\n    selector: { app: web }\n    ports: [{ port: 443, targetPort: 8080 }]\n  ---\n  apiVersion: apps/v1',
    );
    const scenario = valueOf(loadScenario(text));
    if (!scenario) throw new Error('scenario');
    const built = clusterOf(scenario, undefined, undefined);
    const web = built.cluster?.model.services.find((s) => s.name === 'web');
    expect(web?.clusterIP).toBe('10.96.0.2');
    expect(web?.ports[0]?.nodePort).toBe(30000);
    const [e] = built.diagnostics.filter((d) => d.severity === 'error');
    expect(e).toMatchObject({
      source: 'manifests',
      line: 11,
      field: 'Service default/api: metadata.name',
    });
    expect(e?.message).toContain(
      'no ClusterIP is left for this Service in the service CIDR 10.96.0.0/30',
    );
    expect(e?.message).toContain('range is full');
  });
});

describe('names', () => {
  it.each([
    ['cp-🙂', "'🙂' (U+1F642) at character 4"],
    ['cp\u200b-1', 'an invisible ZERO WIDTH SPACE (U+200B) at character 3'],
    ['cp-\u202e1', 'an invisible RIGHT-TO-LEFT OVERRIDE (U+202E) at character 4'],
    ['Cp-1', "'C' (U+0043) at character 1; write 'c' instead"],
  ])('a node named %j says which character and which rule', (name, what) => {
    const [e] = errors(miniWith('name: cp-1', `name: "${name}"`));
    expect(e).toMatchObject({ line: 7, field: 'cluster.nodes.0.name' });
    expect(e?.message).toContain(what);
    expect(e?.message).toContain('a node name is an RFC 1123 DNS subdomain');
    expect(e?.message).not.toContain('undefined');
  });

  it('shows invisible characters of a manifest name as escapes', () => {
    const text = miniWith('metadata: { name: web }', 'metadata: { name: "web\u200b" }');
    const [e] = allErrors(text);
    expect(e?.message).toContain("'web\\u{200b}' has an invisible ZERO WIDTH SPACE (U+200B)");
    expect(e?.message).toContain('a Service name is an RFC 1035 DNS label');
  });
});

describe("errors in a node's own rules are placed in the scenario file", () => {
  it('in a literal block: the exact line and column', () => {
    const text = miniWith(
      '-A PREROUTING -p tcp --dport 22 -j ACCEPT',
      '-A PREROUTING -p tcp --dport 99999 -j ACCEPT',
    );
    const [e] = allErrors(text);
    // The rule is line 3 of the block, which starts on line 12 with 8 spaces of indentation.
    expect(e).toMatchObject({ source: 'scenario', line: 14, column: 30 });
    expect(e?.field).toBe('cluster.nodes.0.rules');
    expect(e?.message).toContain("node cp-1's rules: port '99999' is above 65535");
  });

  it('in a quoted string: the field, and the line and column inside it', () => {
    const text = miniWith(
      `rules: |
        *raw
        :PREROUTING ACCEPT [0:0]
        -A PREROUTING -p tcp --dport 22 -j ACCEPT
        COMMIT`,
      'rules: "*raw\\n:PREROUTING ACCEPT [0:0]\\n-A PREROUTING -j NOPE\\nCOMMIT\\n"',
    );
    const [e] = allErrors(text);
    expect(e).toMatchObject({ line: 11, column: 14 });
    expect(e?.message).toMatch(/^line 3, column 15 of node cp-1's rules: no chain or target/);
  });
});

describe('YAML limits', () => {
  it('an alias bomb is refused at the first alias', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]',
      'e: [*d, *d, *d, *d, *d, *d, *d, *d, *d]',
    ].join('\n');
    const [e] = errors(bomb);
    expect(e).toMatchObject({ line: 2, column: 8 });
    expect(e?.message).toContain('aliases (*name) here expand to too many values');
  });

  it('100,000 nested brackets are refused quickly at the 101st', () => {
    const [e] = errors(`title: ${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    expect(e).toMatchObject({ line: 1, column: 108 });
    expect(e?.message).toContain('nest more than 100 levels');
  });

  it('text past the size limit is refused before parsing', () => {
    const [e] = errors(`title: ${'x'.repeat(9 * 1024 * 1024)}`);
    expect(e?.message).toMatch(/the text is 9\.0 MB; the lab reads at most 8\.0 MB/);
  });
});

describe('the lab says when not every branch was computed', () => {
  it('runLab carries the enumeration limit into the result', () => {
    // Ten coin flips in cp-1's raw table: 1,024 branches, past the limit of 512.
    const flips = Array.from(
      { length: 10 },
      () => '        -A PREROUTING -m statistic --mode random --probability 0.5',
    ).join('\n');
    const text = miniWith('        -A PREROUTING -p tcp --dport 22 -j ACCEPT', flips);
    const r = runLab({ scenario: text });
    expect(r.ok).toBe(true);
    expect(r.runs).toHaveLength(512);
    // 512 outcomes remain, in 252 subtrees not entered yet: "at least 252 more".
    expect(r.partial).toEqual({
      covered: 0.5,
      notComputed: 252,
      stoppedBy: { limit: 'branches', count: 512 },
    });
    expect(runLab({ scenario: MINI_SCENARIO }).partial).toBeUndefined();
  });

  it('a probe checked on part of the branches does not pass', () => {
    const flips = Array.from(
      { length: 10 },
      () => '        -A PREROUTING -m statistic --mode random --probability 0.5',
    ).join('\n');
    const scenario = valueOf(
      loadScenario(miniWith('        -A PREROUTING -p tcp --dport 22 -j ACCEPT', flips)),
    );
    if (!scenario) throw new Error('scenario');
    const built = clusterOf(scenario, undefined, undefined);
    const r = checkProbe(
      built.cluster as NonNullable<typeof built.cluster>,
      built.probes[0] as ProbeDef,
    );
    expect(r.pass).toBe(false);
    expect(r.diff).toContain(
      'not every branch was computed (the engine stopped at its limit of 512 branches): the 512 computed cover 50.0% of the probability',
    );
  });
});
