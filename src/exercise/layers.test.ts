/** The lint layering: the exercise layer is core (no UI, no Node), and the layers below never import it. */
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: join(import.meta.dirname, '../..') });

async function errors(file: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath: join(import.meta.dirname, '../..', file) });
  return (r?.messages ?? [])
    .filter((m) => m.ruleId === 'no-restricted-imports')
    .map((m) => m.message);
}

describe('layers', () => {
  it('cluster must not import the exercise layer', async () => {
    expect(
      await errors('src/cluster/x.ts', "export { checkAnswer } from '../exercise/check.ts';\n"),
    ).toEqual([expect.stringContaining('Exercises sit above the cluster layer')]);
  });
  it('the exercise layer may import the cluster, but no UI and no Node module', async () => {
    expect(
      await errors('src/exercise/x.ts', "export { runLab } from '../cluster/lab.ts';\n"),
    ).toEqual([]);
    expect(
      await errors(
        'src/exercise/x.ts',
        "import { useState } from 'react';\nimport { readFileSync } from 'node:fs';\nexport const a = [useState, readFileSync];\n",
      ),
    ).toEqual([
      expect.stringContaining('no UI dependencies'),
      expect.stringContaining('platform-neutral'),
    ]);
  });
});
