/**
 * `hookpath exercise check FILE [--manifests ANSWER.yaml] [--lang en|zh] [--json]`: for
 * instructors. Without an answer it checks the exercise itself (its start fails at least one
 * goal, every reference answer meets all of them); with one it grades the answer, so a workshop
 * can grade in CI. Exit 0: as it should be; 1: a goal is not met; 2: bad input (file:line:column).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { formatDiagnostic, type Diagnostic, valueOf } from '../engine/index.ts';
import { inFile, type BlockAt } from './diagnostics.ts';
import {
  checkAnswer,
  checkExercise,
  loadExercise,
  type ExerciseReport,
  type LoadedExercise,
} from '../exercise/index.ts';
import { UsageError } from './input-error.ts';
import { FILE_LIMITS, readInput } from './files.ts';

export interface Out {
  write(s: string): unknown;
}

type Lang = 'en' | 'zh';

/** Scenario texts by id: the exercise's own repository first, then the lab's. */
function scenariosFor(file: string): Record<string, string> {
  const dirs = [
    join(dirname(file), '..', 'scenarios'),
    fileURLToPath(new URL('../../scenarios', import.meta.url)),
  ];
  const out: Record<string, string> = {};
  for (const dir of dirs.reverse()) {
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir))
      if (f.endsWith('.yaml')) out[f.replace(/\.yaml$/, '')] = readFileSync(join(dir, f), 'utf8');
  }
  return out;
}

function printDiag(err: Out, file: string, d: Diagnostic, at?: BlockAt): void {
  err.write(`${formatDiagnostic(inFile(d, at ?? null), file)}\n`);
}

/** The summary lines, in the language of the goals' own texts (`--lang`). */
const SAY = {
  en: {
    startFails: (n: number, t: number) => `start: fails ${n} of ${t} goals, as it should`,
    startMeets: (t: number) =>
      `start: meets all ${t} goals already — the exercise has nothing to do`,
    solution: (i: number, title: string, v: string) => `solution ${i} (${title}): ${v}`,
    meetsAll: (t: number) => `meets all ${t} goals`,
    meets: (n: number, t: number) => `meets ${n} of ${t} goals`,
    hold: (n: number, t: number) => `${n} of ${t} goals hold`,
    instead: 'instead: ',
  },
  zh: {
    startFails: (n: number, t: number) => `起始状态：${t} 个目标中有 ${n} 个未达成，符合预期`,
    startMeets: (t: number) => `起始状态：已达成全部 ${t} 个目标——这道练习无事可做`,
    solution: (i: number, title: string, v: string) => `参考答案 ${i}（${title}）：${v}`,
    meetsAll: (t: number) => `达成全部 ${t} 个目标`,
    meets: (n: number, t: number) => `达成 ${t} 个目标中的 ${n} 个`,
    hold: (n: number, t: number) => `${t} 个目标中 ${n} 个达成`,
    instead: '实际：',
  },
} as const;

function printGoals(out: Out, r: ExerciseReport, lang: Lang, onlyFailing: boolean): void {
  for (const g of r.goals) {
    if (onlyFailing && g.pass) continue;
    out.write(`  ${g.pass ? '✓' : '✗'} ${g.id}: ${g.text[lang]}\n`);
    for (const f of g.failures) {
      out.write(`      ${f.from} → ${f.to}: ${f.why[lang]}\n`);
      out.write(`      ${SAY[lang].instead}${f.instead[lang]}\n`);
    }
  }
}

/** Problems of a report that block checking; printed where they are. */
function blocked(err: Out, file: string, r: ExerciseReport, at?: BlockAt): boolean {
  for (const d of r.diagnostics) printDiag(err, file, d, at);
  return !r.ok;
}

function checkItself(ex: LoadedExercise, file: string, lang: Lang, out: Out, err: Out): number {
  const c = checkExercise(ex);
  const startAt =
    ex.def.start.manifests !== undefined ? ex.blockAt(['start', 'manifests']) : undefined;
  if (blocked(err, file, c.start, startAt)) {
    err.write(`${file}: the starting state does not run (see above)\n`);
    return 2;
  }
  let bad = false;
  c.solutions.forEach((s, i) => {
    if (blocked(err, file, s.report, ex.blockAt(['solutions', i, 'manifests']))) bad = true;
  });
  if (bad) {
    err.write(`${file}: a reference answer does not run (see above)\n`);
    return 2;
  }
  const total = c.start.goals.length;
  const failing = c.start.goals.filter((g) => !g.pass);
  out.write(`${file}: ${ex.def.title[lang]}\n`);
  const say = SAY[lang];
  out.write(`${failing.length ? say.startFails(failing.length, total) : say.startMeets(total)}\n`);
  printGoals(out, c.start, lang, true);
  c.solutions.forEach((s, i) => {
    const held = s.report.goals.filter((g) => g.pass).length;
    const verdict = s.report.solved ? say.meetsAll(total) : say.meets(held, total);
    out.write(`${say.solution(i + 1, s.title[lang], verdict)}\n`);
    if (!s.report.solved) printGoals(out, s.report, lang, true);
  });
  out.write(c.ok ? 'ok\n' : 'FAILED\n');
  return c.ok ? 0 : 1;
}

function grade(
  ex: LoadedExercise,
  answerFile: string,
  lang: Lang,
  json: boolean,
  out: Out,
  err: Out,
): number {
  const r = checkAnswer(ex, readInput(answerFile, 'the answer file', FILE_LIMITS.yaml));
  if (blocked(err, answerFile, r)) {
    err.write(`${answerFile}: the answer does not run (see above)\n`);
    return 2;
  }
  if (json) {
    out.write(`${JSON.stringify({ exercise: ex.id, answer: answerFile, ...r }, null, 2)}\n`);
    return r.solved ? 0 : 1;
  }
  const held = r.goals.filter((g) => g.pass).length;
  out.write(
    `${answerFile}: ${SAY[lang].hold(held, r.goals.length)} (${ex.id}: ${ex.def.title[lang]})\n`,
  );
  printGoals(out, r, lang, false);
  return r.solved ? 0 : 1;
}

export function exerciseCommand(
  argv: string[],
  out: Out = process.stdout,
  err: Out = process.stderr,
): number {
  const [sub, ...rest] = argv;
  if (sub !== 'check')
    throw new UsageError(
      `exercise needs a subcommand: hookpath exercise check FILE [--manifests ANSWER.yaml]`,
    );
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      manifests: { type: 'string' },
      lang: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const file = positionals[0];
  if (!file || positionals.length > 1)
    throw new UsageError('give one exercise file, e.g. exercises/vip22-give-ssh-back.yaml');
  const lang: Lang = values.lang === 'zh' ? 'zh' : 'en';
  if (values.lang !== undefined && values.lang !== 'en' && values.lang !== 'zh')
    throw new UsageError(`--lang is en or zh, not '${values.lang}'`);
  const exerciseRead = loadExercise(readInput(file, 'the exercise file', FILE_LIMITS.yaml), {
    id: basename(file).replace(/\.ya?ml$/, ''),
    scenarios: scenariosFor(file),
  });
  const exercise = valueOf(exerciseRead);
  const { diagnostics } = exerciseRead;
  for (const d of diagnostics) printDiag(err, file, d);
  if (!exercise) {
    err.write(`${file}: not a valid exercise (see above)\n`);
    return 2;
  }
  if (values.manifests)
    return grade(exercise, values.manifests, lang, values.json ?? false, out, err);
  if (values.json) {
    const c = checkExercise(exercise);
    out.write(`${JSON.stringify({ exercise: exercise.id, ...c }, null, 2)}\n`);
    return c.ok ? 0 : c.start.ok && c.solutions.every((s) => s.report.ok) ? 1 : 2;
  }
  return checkItself(exercise, file, lang, out, err);
}
