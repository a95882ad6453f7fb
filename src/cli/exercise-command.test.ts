import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exerciseCommand } from './exercise-command.ts';

const root = join(import.meta.dirname, '../..');
const EX = join(root, 'exercises/vip22-give-ssh-back.yaml');
const tmp = mkdtempSync(join(tmpdir(), 'hookpath-exercise-'));

function exerciseCli(...argv: string[]) {
  let out = '';
  let err = '';
  const code = exerciseCommand(
    argv,
    { write: (s: string) => (out += s) },
    { write: (s: string) => (err += s) },
  );
  return { code, out, err };
}

function file(name: string, text: string): string {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
}

const exercise = readFileSync(EX, 'utf8');
/** The first reference answer of the VIP:22 exercise, as a learner would hand it in. */
const answer = exercise
  .split('    manifests: |\n')[1]!
  .split('\n  - title:')[0]!
  .split('\n')
  .map((l) => l.slice(6))
  .join('\n');

describe('hookpath exercise check FILE', () => {
  it('exit 0 when the start fails a goal and every reference answer meets them all', () => {
    const r = exerciseCli('check', EX);
    expect(r.code).toBe(0);
    expect(r.out).toContain('start: fails 1 of 4 goals, as it should');
    expect(r.out).toContain('✗ ssh-reaches-sshd: ssh from the laptop to VIP:22');
    expect(r.out).toContain('instead: cp-1 DNATed it in nat PREROUTING');
    expect(r.out).toMatch(
      /solution 2 \(Give the Git Service its own address\): meets all 4 goals\nok\n$/,
    );
  });

  it('speaks Chinese with --lang zh, summary lines included', () => {
    const r = exerciseCli('check', EX, '--lang', 'zh');
    expect(r.code).toBe(0);
    expect(r.out).toContain('起始状态：4 个目标中有 1 个未达成，符合预期');
    expect(r.out).toMatch(/参考答案 2（.+）：达成全部 4 个目标\nok\n$/);
    expect(r.out).not.toMatch(/start:|solution \d|goals/);
  });

  it('exit 1 when the start already meets every goal, or a reference answer does not', () => {
    const noop = file(
      'noop.yaml',
      exercise.replace(
        /goals:\n[\s\S]*?\nhints:/,
        `goals:\n  - id: kong\n    text: { en: "Kong", zh: "Kong" }\n    from: client/laptop\n    to: vip:443\n    expect: { answeredBy: pod/kong }\nhints:`,
      ),
    );
    const r = exerciseCli('check', noop);
    expect(r.code).toBe(1);
    expect(r.out).toContain('start: meets all 1 goals already');
    const wrong = file('wrong.yaml', exercise.replace('- port: 2222', '- port: 22'));
    const w = exerciseCli('check', wrong);
    expect(w.code).toBe(1);
    expect(w.out).toContain('solution 1 (Move the Git Service to port 2222): meets 3 of 4 goals');
    expect(w.out).toMatch(/FAILED\n$/);
  });

  it('exit 2 with file:line:column for a broken exercise', () => {
    const broken = file(
      'broken.yaml',
      exercise.replace('difficulty: beginner', 'difficulty: easy'),
    );
    const r = exerciseCli('check', broken);
    expect(r.code).toBe(2);
    const line = exercise.split('\n').findIndex((l) => l.startsWith('difficulty')) + 1;
    expect(r.err).toContain(`${broken}:${line}:13: error: difficulty: 'easy' must be one of`);
  });

  it('a broken reference answer is reported at its line in the exercise file', () => {
    const text = exercise.replace(
      '      ports:\n          - port: 2222',
      '      ports:\n          - port: 222222',
    );
    const broken = file('broken-solution.yaml', text);
    const r = exerciseCli('check', broken);
    expect(r.code).toBe(2);
    const line = text.split('\n').findIndex((l) => l.includes('222222')) + 1;
    expect(r.err).toContain(`${broken}:${line}:`);
  });
});

describe('hookpath exercise check FILE --manifests ANSWER', () => {
  it('exit 0 when every goal holds', () => {
    const r = exerciseCli('check', EX, '--manifests', file('good.yaml', answer));
    expect(r.code).toBe(0);
    expect(r.out).toContain('4 of 4 goals hold');
  });

  it('exit 1 with each failing goal, why, and what the packet did instead', () => {
    const start = exercise.split('  manifests: |\n')[1]!.split('\ngoals:')[0]!;
    const lazy = start
      .split('\n')
      .map((l) => l.slice(4))
      .join('\n');
    const r = exerciseCli('check', EX, '--manifests', file('lazy.yaml', lazy), '--lang', 'zh');
    expect(r.code).toBe(1);
    expect(r.out).toContain('4 个目标中 3 个达成');
    expect(r.out).toContain('✗ ssh-reaches-sshd: laptop 通过 ssh 访问 VIP:22');
    expect(r.out).toContain('client/laptop → vip:22: 期望由 node/cp-1/sshd 应答');
    expect(r.out).toContain('实际：cp-1 在 nat PREROUTING');
  });

  it('exit 2 with ANSWER:line:column when the answer does not run', () => {
    const bad = file('bad.yaml', answer.replace('port: 2222', 'port: 70000'));
    const r = exerciseCli('check', EX, '--manifests', bad);
    expect(r.code).toBe(2);
    const line = answer.split('\n').findIndex((l) => l.includes('port: 2222')) + 1;
    expect(r.err).toContain(`${bad}:${line}:`);
    expect(r.err).toContain('70000 is out of range');
  });

  it('runs as `hookpath` with the exit code a CI job sees', () => {
    const bin = join(root, 'src/cli/bin.mjs');
    expect(() =>
      execFileSync('node', [bin, 'exercise', 'check', EX, '--manifests', file('ci.yaml', answer)], {
        stdio: 'pipe',
      }),
    ).not.toThrow();
    let status = 0;
    try {
      execFileSync('node', [bin, 'exercise', 'check', EX, '--manifests', join(tmp, 'bad.yaml')], {
        stdio: 'pipe',
      });
    } catch (e) {
      status = (e as { status: number }).status;
    }
    expect(status).toBe(2);
  }, 60_000);
});
