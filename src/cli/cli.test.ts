/**
 * The command line against hostile input: every case ends with a message that names the place
 * and exit code 2, never a stack trace; limits give honest partial answers.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MINI_SCENARIO, miniWith } from '../cluster/testing/mini-scenario.ts';
import { reportError, runCli } from './cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'hookpath-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

function cli(...argv: string[]): { code: number; out: string; err: string } {
  let out = '';
  let err = '';
  const code = runCli(argv, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

const RULES = file(
  'node.rules',
  '*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -p tcp --dport 23 -j REJECT\nCOMMIT\n',
);
const HOST = ['--rules', RULES, '--local', '10.0.0.1/24', '--listen', 'sshd tcp 0.0.0.0:22'];
const PACKET = ['--packet', 'tcp 10.0.0.2:40000 > 10.0.0.1:22'];
const SCENARIO = file('mini.yaml', MINI_SCENARIO);

/** Bad input: exit 2, a message on stderr naming `where`, nothing that looks like a stack. */
function expectBadInput(r: ReturnType<typeof cli>, where: string | RegExp): void {
  expect(r.code, r.err).toBe(2);
  if (typeof where === 'string') expect(r.err).toContain(where);
  else expect(r.err).toMatch(where);
  expect(r.err).not.toMatch(/\n\s+at |Error:|TypeError|RangeError|undefined/);
}

describe('files', () => {
  it('a directory as the file', () => {
    expectBadInput(cli('run', dir), `${dir}: is a directory; give the scenario file itself`);
    expectBadInput(
      cli('trace', '--rules', dir, '--local', '10.0.0.1', ...PACKET),
      'is a directory',
    );
  });

  it('a missing file, an empty name', () => {
    expectBadInput(
      cli('trace', '--rules', join(dir, 'nope'), ...PACKET),
      /nope: no such file \(the rules file\)/,
    );
    expectBadInput(cli('rules', ''), 'give the scenario file (an empty name was given)');
  });

  it('a binary file and a file that is not UTF-8', () => {
    const bin = file('bin.rules', '*filter\n\0\0\0');
    expectBadInput(cli('trace', '--rules', bin, ...PACKET), 'not a text file (byte 0 at offset 8)');
    // Not ASCII (UTF-8 'é' before the NUL): the byte offset, not a character index.
    const utf8 = file('utf8.rules', '# \u00e9\n\0');
    expectBadInput(
      cli('trace', '--rules', utf8, ...PACKET),
      'not a text file (byte 0 at offset 5)',
    );
    const latin1 = join(dir, 'latin1.yaml');
    writeFileSync(latin1, Buffer.from([0x74, 0x69, 0x74, 0x6c, 0x65, 0x3a, 0x20, 0xe9, 0x0a]));
    expectBadInput(cli('run', latin1), 'not UTF-8 text; save the scenario file as UTF-8');
  });

  it('a UTF-8 rules file with a BOM and Chinese comments: columns count characters', () => {
    const zh = file(
      'zh.rules',
      '\uFEFF*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -m comment --comment "拒绝" -p tcp --dport x -j DROP\nCOMMIT\n',
    );
    expectBadInput(
      cli('trace', '--rules', zh, ...PACKET),
      `${zh}:3:43: error: 'x' is not a port or port range`,
    );
  });

  it('an empty, invalid or alias-bomb host file', () => {
    const empty = file('empty.yaml', '');
    expectBadInput(cli('trace', '--host', empty, ...PACKET), `${empty}: the host file is empty`);
    const bad = file(
      'bad-host.yaml',
      'interfaces:\n  - { name: eth0, addresses: [10.0.0.1/24] }\nlisteners:\n  - { process: sshd, proto: tcp, address: 0.0.0.0, port: 99999 }\ncolour: blue\n',
    );
    const r = cli('trace', '--host', bad, ...PACKET);
    expectBadInput(r, `${bad}:4:58: error: listeners.0.port: must be <= 65535`);
    expect(r.err).toContain(`${bad}:5:1: error: colour: 'colour' is not a field of this part`);
    const addr = file(
      'bad-addr.yaml',
      'interfaces: [{ name: eth0, addresses: [10.0.0.300/24] }]\n',
    );
    expectBadInput(
      cli('trace', '--host', addr, ...PACKET),
      `${addr}:1:40: error: interfaces[0].addresses[0]: '10.0.0.300/24' is not an address`,
    );
    const bomb = file(
      'bomb.yaml',
      'a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n',
    );
    expectBadInput(cli('trace', '--host', bomb, ...PACKET), `${bomb}:2:8: error: aliases`);
  });

  it('a scenario that is an alias bomb or nests too deep', () => {
    const bomb = file(
      'bomb-scenario.yaml',
      'a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n',
    );
    expectBadInput(cli('run', bomb), `${bomb}:2:8: error: YAML: aliases (*name) here expand`);
    const deep = file('deep.yaml', `title: ${'['.repeat(50_000)}`);
    expectBadInput(
      cli('trace', deep),
      `${deep}:1:108: error: YAML: collections nest more than 100`,
    );
  });

  it('a file past the size limit is refused before it is read whole', () => {
    const big = join(dir, 'big.rules');
    writeFileSync(big, Buffer.alloc(65 * 1024 * 1024, 0x23));
    expectBadInput(cli('trace', '--rules', big, ...PACKET), 'the rules file is larger than 64 MB');
  });
});

describe('packet and option values', () => {
  it.each([
    [['--packet', 'tcp 10.0.0.2:40000 > 10.0.0.1:99999'], "--packet destination port '99999'"],
    [['--packet', 'tcp 10.0.0.2:0 > 10.0.0.1:22'], "--packet source port '0'"],
    [
      ['--src', '10.0.0.2', '--dst', '10.0.0.1', '--dport', '22', '--sport', '99999'],
      "--sport '99999'",
    ],
    [['--src', '10.0.0.2', '--dst', '10.0.0.1', '--dport', ''], "--dport ''"],
    [
      [...PACKET, '--sport', '5'],
      '--packet already gives the protocol, addresses and ports: drop --sport',
    ],
    [[...PACKET, '--seed', 'abc'], "--seed 'abc': give a whole number"],
    [[...PACKET, '--seed', '1.5'], "--seed '1.5'"],
    [[...PACKET, '--seed', '99999999999'], "--seed '99999999999'"],
    [
      ['--packet', 'tcp 10.0.0.2:40000 > 10.0.0.300:22'],
      "--packet destination '10.0.0.300' is not an IP address",
    ],
    [['--packet', 'gre 10.0.0.2 > 10.0.0.1'], "protocol 'gre': use tcp, udp, sctp or icmp"],
    [
      ['--packet', 'tcp fd00::2:40000 > [fd00::1]:22'],
      'write an IPv6 address with a port in brackets',
    ],
    [['--packet', 'tcp 10.0.0.2:1 > [fd00::1]:22'], 'are of different IP versions'],
    [
      ['--packet', 'tcp [fd00::2]:1 > [fd00::1]:22'],
      'give ip6tables-save output with --rules6 FILE',
    ],
    [[...PACKET, '--in', 'eth9'], '--in eth9: the host has no interface eth9 (it has lo, eth0)'],
  ])('%j is refused', (args, message) => {
    expectBadInput(cli('trace', ...HOST, ...args), message);
  });

  it.each([
    [
      ['--local', '10.0.0.300/24'],
      "--local '10.0.0.300/24' is not an address with a prefix length",
    ],
    [['--local', '10.0.0.1/24', '--listen', 'sshd tcp 0.0.0.0:70000'], "port '70000'"],
    [
      ['--local', '10.0.0.1/24', '--route', 'default via 10.0.0.999'],
      "via '10.0.0.999' is not an IP address",
    ],
    [['--local', '10.0.0.1/24', '--iface', 'a/b=10.0.0.2/24'], "'a/b' is not an interface name"],
    [
      ['--local', '10.0.0.1/24', '--ipset', 'S hash:nope 1.2.3.4'],
      "ipset type 'hash:nope' is not supported",
    ],
  ])('host option %j is refused', (args, message) => {
    expectBadInput(cli('trace', '--rules', RULES, ...args, ...PACKET), message);
  });

  it('an IPv6 packet with [addr]:port meets the ip6tables rules', () => {
    const rules6 = file(
      'node.rules6',
      '*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -s fd00::2/128 -p tcp --dport 22 -j DROP\nCOMMIT\n',
    );
    const args = ['--rules6', rules6, '--local', 'fd00::1/64', '--listen', 'sshd tcp [::]:22'];
    const dropped = cli('trace', ...args, '--packet', 'tcp [fd00::2]:40000 > [fd00::1]:22');
    expect(dropped.code).toBe(0);
    expect(dropped.out).toContain('filter:INPUT:rule:1:DROP');
    const other = cli('trace', ...args, '--packet', 'tcp [fd00::3]:40000 > [fd00::1]:22');
    expect(other.out).toMatch(/^delivered to sshd on host; it sees source \[fd00::3\]:40000/);
  });

  it('unknown commands and options say what exists', () => {
    expectBadInput(
      cli('bogus'),
      "unknown command 'bogus'; the commands are run, rules, trace, matrix, exercise, help",
    );
    expectBadInput(cli('trace', '--nope'), "Unknown option '--nope'");
    expectBadInput(
      cli('trace', SCENARIO, '--proto', 'gre'),
      "--proto 'gre': use tcp, udp, sctp or icmp (a ping)",
    );
  });
});

describe('scenarios', () => {
  it('manifest errors under run: exit 2, the place, and why nothing ran', () => {
    const bad = file(
      'bad-manifest.yaml',
      miniWith(
        'ports: [{ port: 80, targetPort: 8080 }]',
        'ports: [{ port: 80000, targetPort: 8080 }]',
      ),
    );
    const r = cli('run', bad);
    expectBadInput(
      r,
      `${bad}:27:21: error: Service default/web: spec.ports[0].port: 80000 is out of range 1..65535`,
    );
    expect(r.err).toContain(
      `${bad}: not run: the cluster has errors (above); its 2 probes did not run`,
    );
    expect(r.out).toContain(
      '0 of 0 probes as expected; 1 scenario or variant not run because of errors',
    );
  });

  it('one bad file among good ones: the good ones still run, the exit code is 2', () => {
    const r = cli('run', SCENARIO, dir);
    expect(r.code).toBe(2);
    expect(r.out).toContain('2 of 2 probes as expected; 1 scenario or variant not run');
  });

  it('a node name with an invisible character says which and where', () => {
    const bad = file('zw.yaml', miniWith('name: cp-1', 'name: "cp\u200b-1"'));
    expectBadInput(
      cli('run', bad),
      `${bad}:7:13: error: cluster.nodes.0.name: 'cp\\u{200b}-1' has an invisible ZERO WIDTH SPACE (U+200B) at character 3; a node name is an RFC 1123 DNS subdomain`,
    );
  });

  it("an error in a node's rules points into the scenario file", () => {
    const bad = file('rules.yaml', miniWith('--dport 22 -j ACCEPT', '--dport 22 -j NOPE'));
    expectBadInput(
      cli('rules', bad),
      `${bad}:14:41: error: cluster.nodes.0.rules: node cp-1's rules: no chain or target named 'NOPE'`,
    );
  });

  it("prints an nftables-mode node's kube-proxy table, its own iptables rules on request", () => {
    const modes = file(
      'modes.yaml',
      miniWith('manifests: |', 'kubeProxyModes: [iptables, nftables]\nmanifests: |'),
    );
    const nft = cli('rules', modes, '--node', 'cp-1', '--mode', 'nftables');
    expect(nft.code, nft.err).toBe(0);
    expect(nft.out).toContain('add table ip kube-proxy { comment "rules for kube-proxy" ; }');
    expect(nft.err).toContain('cp-1 also has iptables rules of its own');
    const own = cli('rules', modes, '--node', 'cp-1', '--mode', 'nftables', '--iptables');
    expect(own.out).toContain('-A PREROUTING -p tcp --dport 22 -j ACCEPT');
    expect(own.out).not.toContain('KUBE-');
    expect(cli('rules', modes, '--node', 'cp-1').out).toContain(':KUBE-SERVICES - [0:0]');
    expectBadInput(
      cli('rules', modes, '--mode', 'ipvs'),
      "--mode 'ipvs': the scenario runs in iptables, nftables (its kubeProxyModes)",
    );
    const run = cli('run', modes);
    expect(run.out).toContain('[iptables mode]');
    expect(run.out).toContain('[nftables mode]');
    // The trace names kube-proxy's nft base chains and rules as nft monitor trace does.
    const trace = cli(
      'trace',
      modes,
      '--mode',
      'nftables',
      '--from',
      'client/laptop',
      '--to',
      'nodeport/web@cp-1',
    );
    expect(trace.code, trace.err).toBe(0);
    expect(trace.out).toContain(
      '-- ip kube-proxy nat-prerouting PREROUTING (type nat, priority -100)',
    );
    expect(trace.out).toMatch(
      /ip kube-proxy services rule ip daddr @nodeport-ips .* # handle \d+ \(verdict goto external-\S+\)/,
    );
  });

  it('--all past the branch limit says what was and was not computed', () => {
    const flips = Array.from(
      { length: 10 },
      () => '        -A PREROUTING -m statistic --mode random --probability 0.5',
    ).join('\n');
    const many = file(
      'flips.yaml',
      miniWith('        -A PREROUTING -p tcp --dport 22 -j ACCEPT', flips),
    );
    const r = cli('trace', many, '--all');
    expect(r.code).toBe(0);
    expect(r.out.split('\n').slice(0, 3)).toEqual([
      'Not every branch was computed: hookpath stopped at its limit of 512 branches.',
      'The 512 branches computed cover 50.0% of the probability; at least 252 more branches (50.0%) were not computed, so each share below is a lower bound.',
      '  at least  50.0%  answered by node/cp-1/sshd (src seen 192.168.50.10)',
    ]);
    expect(r.out).not.toMatch(/^\s*0\.0%/m);
    const run = cli('run', many);
    expect(run.code).toBe(1);
    expect(run.out).toContain('not every branch was computed');
  });
});

describe('bad input under --json: the diagnostics as data on stdout, the same text on stderr', () => {
  /** The JSON stdout of a failed command, after the checks every bad input passes. */
  function jsonFailure(r: ReturnType<typeof cli>, where: string) {
    expectBadInput(r, where);
    const parsed = JSON.parse(r.out) as { ok: boolean; diagnostics: Record<string, unknown>[] };
    expect(parsed.ok).toBe(false);
    return parsed.diagnostics;
  }

  it('a bad option value: the command line as its source, the option as its field', () => {
    const r = cli(
      'trace',
      SCENARIO,
      '--from',
      'client/laptop',
      '--to',
      'node/cp-1:22',
      '--seed',
      'abc',
      '--json',
    );
    const [d, ...more] = jsonFailure(r, "hookpath: --seed 'abc': give a whole number");
    expect(more).toEqual([]);
    expect(d).toMatchObject({
      severity: 'error',
      source: 'command line',
      field: '--seed',
      line: 0,
      message: "--seed 'abc': give a whole number from 0 to 4294967295, e.g. --seed 7",
    });
  });

  it('an unknown option: what to do is its hint', () => {
    const r = cli('run', SCENARIO, '--colour', '--json');
    const [d] = jsonFailure(r, "Unknown option '--colour'");
    expect(d).toMatchObject({ source: 'command line', hint: 'hookpath help lists every option' });
    expect(r.err).toContain('\n  hint: hookpath help lists every option');
  });

  it('a rules file with an error: its file, line and column', () => {
    const bad = file('nope.rules', '*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -j NOPE\nCOMMIT\n');
    const r = cli('trace', '--rules', bad, '--local', '10.0.0.1/24', ...PACKET, '--json');
    const [d] = jsonFailure(r, `${bad}:3:`);
    expect(d).toMatchObject({ severity: 'error', source: bad, line: 3 });
    expect(d?.['column']).toBeGreaterThan(0);
  });

  it('run: a variant that cannot run is in the report with its placed diagnostics', () => {
    const bad = file(
      'bad-json.yaml',
      miniWith(
        'ports: [{ port: 80, targetPort: 8080 }]',
        'ports: [{ port: 80000, targetPort: 8080 }]',
      ),
    );
    const r = cli('run', SCENARIO, bad, '--json');
    expect(r.code).toBe(2);
    const report = JSON.parse(r.out) as Record<string, unknown>[];
    expect(report.filter((x) => x['file'] === SCENARIO && x['pass'] === true)).toHaveLength(2);
    const notRun = report.filter((x) => x['notRun']);
    expect(notRun).toEqual([
      expect.objectContaining({
        file: bad,
        pass: false,
        diagnostics: [
          expect.objectContaining({
            source: bad,
            line: 27,
            column: 21,
            field: 'Service default/web: spec.ports[0].port',
          }),
        ],
      }),
    ]);
  });

  it('run: a file that is not a scenario is in the report too', () => {
    const r = cli('run', dir, '--json');
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out)).toEqual([
      expect.objectContaining({
        file: dir,
        pass: false,
        notRun: true,
        diagnostics: [expect.objectContaining({ source: 'command line' })],
      }),
    ]);
  });
});

describe('the process', () => {
  const bin = join(import.meta.dirname, 'bin.mjs');

  it('output into a closed pipe ends quietly with 141, as `| head -1` does to coreutils', async () => {
    // 3,000 matching MARK rules: a trace far larger than a pipe's buffer.
    const marks = file(
      'marks.rules',
      `*mangle\n:PREROUTING ACCEPT [0:0]\n${'-A PREROUTING -j MARK --set-xmark 0x1/0xffffffff\n'.repeat(3000)}COMMIT\n`,
    );
    const child = spawn(
      process.execPath,
      [bin, 'trace', '--rules', marks, '--local', '10.0.0.1/24', ...PACKET],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    // Read the first chunk, then close our end, as `head -1` does.
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(err).toBe('');
    expect(code).toBe(141);
  });

  it('the process ends at once after its output, yet a slow reader gets all of it', async () => {
    // The CLI exits without tearing the heap down (exit.ts): a trace far larger than a pipe's
    // buffer, read slowly, must still arrive whole, with the exit code the command returned.
    const marks = file(
      'marks-all.rules',
      `*mangle\n:PREROUTING ACCEPT [0:0]\n${'-A PREROUTING -j MARK --set-xmark 0x1/0xffffffff\n'.repeat(3000)}COMMIT\n`,
    );
    const argv = ['trace', '--rules', marks, '--local', '10.0.0.1/24', ...PACKET];
    const expected = cli(...argv);
    expect(expected.out.length).toBeGreaterThan(256 * 1024);
    const child = spawn(process.execPath, [bin, ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => {
      chunks.push(d);
      // A reader slower than the writer: the pipe fills and the writer waits.
      child.stdout.pause();
      setTimeout(() => child.stdout.resume(), 2);
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(expected.code);
    expect(Buffer.concat(chunks).toString()).toBe(expected.out);
  });

  it('bad input through the real binary: exit 2 and no stack trace', () => {
    const r = spawnSync(process.execPath, [bin, 'run', dir], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      `hookpath: ${dir}: is a directory; give the scenario file itself, not its directory\n`,
    );
  });

  it('- reads the rules from stdin', () => {
    const r = spawnSync(
      process.execPath,
      [bin, 'trace', '--rules', '-', '--local', '10.0.0.1/24', ...PACKET],
      { encoding: 'utf8', input: '*filter\n:INPUT DROP [0:0]\nCOMMIT\n' },
    );
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('filter:INPUT:policy:DROP');
  });

  it('a bug prints one line and how to report it, exit 70', () => {
    let err = '';
    const code = reportError(new RangeError('Maximum call stack size exceeded'), {
      out: () => {},
      err: (t) => void (err += t),
    });
    expect(code).toBe(70);
    expect(err).toBe(
      'hookpath: internal error: Maximum call stack size exceeded\n  This is a bug in hookpath, not in your input; please report it with the command line. (HOOKPATH_DEBUG=1 shows where it happened.)\n',
    );
  });
});
