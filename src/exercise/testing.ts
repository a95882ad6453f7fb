/** Test helpers: the repository's scenarios by id, and a small exercise built around given goals. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '../..');

export const SCENARIOS: Readonly<Record<string, string>> = Object.fromEntries(
  readdirSync(join(root, 'scenarios'))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => [f.replace(/\.yaml$/, ''), readFileSync(join(root, 'scenarios', f), 'utf8')]),
);

export const EXERCISE_DIR = join(root, 'exercises');

/** An exercise file starting from `scenario`/`variant`, with `goals` (YAML, indented 2). */
export function exerciseText(opts: {
  scenario: string;
  variant?: string;
  goals: string;
  editable?: string;
  manifests?: string;
}): string {
  const indent = (t: string, n: number) =>
    t
      .split('\n')
      .map((l) => (l ? ' '.repeat(n) + l : l))
      .join('\n');
  return `title: { en: "T", zh: "题" }
task: { en: "Do it.", zh: "做。" }
takeaway: { en: "Learnt.", zh: "学到了。" }
topics: [hook-order]
difficulty: beginner
minutes: 5
start:
  scenario: ${opts.scenario}
${opts.variant ? `  variant: ${opts.variant}\n` : ''}${opts.editable ? `  editable: ${opts.editable}\n` : ''}${opts.manifests !== undefined ? `  manifests: |\n${indent(opts.manifests, 4)}\n` : ''}goals:
${indent(opts.goals.trim(), 2)}
hints:
  - { en: "Look.", zh: "看。" }
solutions:
  - title: { en: "S", zh: "解" }
    manifests: "# none"
`;
}
