/**
 * Every exercise in exercises/ is checked as `hookpath exercise check` does (one table-driven
 * test, as for scenarios/): it loads, its start fails at least one goal, and every reference
 * answer meets all of them.
 */
import { valueOf } from '../engine/index.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkExercise, loadExercise } from './index.ts';
import { EXERCISE_DIR, SCENARIOS } from './testing.ts';

const files = readdirSync(EXERCISE_DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

const failing = (r: ReturnType<typeof checkExercise>['start']) =>
  r.goals.filter((g) => !g.pass).map((g) => g.id);

describe('exercises/*.yaml', () => {
  it('there are at least twelve, over every topic the domain has', () => {
    expect(files.length).toBeGreaterThanOrEqual(12);
    const topics = new Set(
      files.flatMap(
        (f) =>
          valueOf(
            loadExercise(readFileSync(join(EXERCISE_DIR, f), 'utf8'), { scenarios: SCENARIOS }),
          )?.def.topics ?? [],
      ),
    );
    expect([...topics].sort()).toEqual(
      [
        'debugging',
        'external-traffic-policy',
        'hook-order',
        'host-rules',
        'internal-traffic-policy',
        'load-balancing',
        'nodeport-exposure',
        'source-ip',
        'topology',
      ].sort(),
    );
  });

  for (const file of files) {
    describe(file, () => {
      const text = readFileSync(join(EXERCISE_DIR, file), 'utf8');
      const exerciseRead = loadExercise(text, {
        id: file.replace(/\.yaml$/, ''),
        scenarios: SCENARIOS,
      });
      const exercise = valueOf(exerciseRead);
      const { diagnostics } = exerciseRead;
      it('is a valid exercise', () => {
        expect(diagnostics.map((d) => `${d.line}:${d.column} ${d.field}: ${d.message}`)).toEqual(
          [],
        );
        expect(exercise).not.toBeNull();
      });
      if (!exercise) return;
      const check = checkExercise(exercise);
      it('the starting state runs, and fails at least one goal', () => {
        expect(check.start.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        expect(failing(check.start).length).toBeGreaterThan(0);
        for (const g of check.start.goals.filter((x) => !x.pass))
          for (const f of g.failures) {
            expect(f.instead.en.length).toBeGreaterThan(10);
            expect(f.instead.zh).toMatch(/[\u4e00-\u9fff]/);
          }
      });
      check.solutions.forEach((s, i) => {
        it(`reference answer ${i + 1} (${s.title.en}) meets every goal`, () => {
          expect(s.report.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
          expect(failing(s.report)).toEqual([]);
          expect(s.report.solved).toBe(true);
        });
      });
      it('speaks both languages', () => {
        const d = exercise.def;
        for (const t of [d.title, d.task, d.takeaway, ...d.hints, ...d.goals.map((g) => g.text)])
          expect(t.zh).toMatch(/[\u4e00-\u9fff]/);
      });
    });
  }
});

describe('the README example', () => {
  it('is a complete exercise that passes the check', () => {
    const readme = readFileSync(join(EXERCISE_DIR, '../README.md'), 'utf8');
    const section = readme.split('## Write an exercise')[1] ?? '';
    const example = [...section.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] ?? '')[1];
    const exerciseRead = loadExercise(example ?? '', { scenarios: SCENARIOS });
    const exercise = valueOf(exerciseRead);
    const { diagnostics } = exerciseRead;
    expect(diagnostics).toEqual([]);
    if (!exercise) throw new Error('no exercise');
    const c = checkExercise(exercise);
    expect(c.ok).toBe(true);
  });
});
