/**
 * Lint guards the layers (lint/layers.js, lint/no-cycle.js): for each layer a deliberate
 * wrong-way import is rejected with the rule's message, and the same file importing the right
 * way passes, so each check is shown to fail and to pass.
 */
import { ESLint } from 'eslint';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const eslint = new ESLint({ cwd: root });

async function problems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport const used = x;\n`, {
    filePath: join(root, file),
  });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId?.includes('restricted-imports') || m.ruleId === 'hookpath/no-cycle')
    .map((m) => m.message);
}

const CASES: { layer: string; file: string; wrong: string; says: RegExp; right: string }[] = [
  {
    layer: 'engine imports nothing outside itself',
    file: 'src/engine/probe.ts',
    wrong: "import { x } from '../kube/proxier/index.ts';",
    says: /engine layer imports only the layers below it/,
    right: "import { x } from './ip.ts';",
  },
  {
    layer: 'engine uses no UI package',
    file: 'src/engine/probe.ts',
    wrong: "import { x } from 'react';",
    says: /no UI dependencies/,
    right: "import { x } from './packet.ts';",
  },
  {
    layer: 'kube imports only the engine, through its index',
    file: 'src/kube/probe.ts',
    wrong: "import { x } from '../cluster/lab.ts';",
    says: /kube layer imports only the layers below it/,
    right: "import { x } from '../engine/index.ts';",
  },
  {
    layer: 'the engine is reached through src/engine/index.ts',
    file: 'src/kube/probe.ts',
    wrong: "import { x } from '../engine/ip.ts';",
    says: /through src\/engine\/index\.ts/,
    right: "import { x } from '../engine/index.ts';",
  },
  {
    layer: 'cluster imports only kube and the engine',
    file: 'src/cluster/probe.ts',
    wrong: "import { x } from '../exercise/check.ts';",
    says: /cluster layer imports only the layers below it/,
    right: "import { x } from '../kube/proxier/index.ts';",
  },
  {
    layer: 'exercises sit below the app',
    file: 'src/exercise/probe.ts',
    wrong: "import { x } from '../app/instance.ts';",
    says: /exercise layer imports only the layers below it/,
    right: "import { x } from '../cluster/lab.ts';",
  },
  {
    layer: 'exercises are core: no UI package',
    file: 'src/exercise/probe.ts',
    wrong: "import { x } from 'react';",
    says: /no UI dependencies/,
    right: "export { runLab } from '../cluster/lab.ts';\nimport { x } from '../engine/index.ts';",
  },
  {
    layer: 'exercises are core: no Node module',
    file: 'src/exercise/probe.ts',
    wrong: "import { x } from 'node:fs';",
    says: /platform-neutral/,
    right: "import { x } from '../kube/proxier/index.ts';",
  },
  {
    layer: 'cluster never re-exports the exercise layer',
    file: 'src/cluster/probe.ts',
    wrong: "export { checkInput } from '../exercise/check.ts';\nimport { x } from './lab.ts';",
    says: /cluster layer imports only the layers below it/,
    right: "import { x } from './lab.ts';",
  },
  {
    layer: 'the app reaches the simulation only through its worker',
    file: 'src/app/components/Probe.tsx',
    wrong: "import { x } from '../../cluster/lab.ts';",
    says: /only through its worker/,
    right: "import type { x } from '../../cluster/lab.ts';",
  },
  {
    layer: 'the worker reaches the engine through its index',
    file: 'src/app/worker/probe.ts',
    wrong: "import { x } from '../../engine/network.ts';",
    says: /through src\/engine\/index\.ts/,
    right: "import { x } from '../../cluster/lab.ts';",
  },
  {
    layer: 'production code never imports test fixtures',
    file: 'src/cluster/probe.ts',
    wrong: "import { x } from '../engine/testing/vip22.ts';",
    says: /never imports test fixtures/,
    right: "import { x } from '../engine/index.ts';",
  },
  {
    layer: 'production code never imports the conformance tool',
    file: 'src/cli/probe.ts',
    wrong: "import { x } from '../conformance/setup.ts';",
    says: /never imports test fixtures, the kernel suite or the tools/,
    right: "import { x } from '../cluster/lab.ts';",
  },
  {
    layer: 'the CLI does not import the app',
    file: 'src/cli/probe.ts',
    wrong: "import { x } from '../app/instance.ts';",
    says: /cli layer imports only the layers below it/,
    right: "import { x } from '../exercise/check.ts';",
  },
  {
    // ip.ts is imported (through others) by rules/parse.ts: importing parse.ts closes a loop.
    layer: 'no import cycle',
    file: 'src/engine/ip.ts',
    wrong: "import { x } from './rules/parse.ts';",
    says: /Import cycle: engine\/ip\.ts -> engine\/rules\/parse\.ts -> .*engine\/ip\.ts/,
    right: "import type { x } from './rules/parse.ts';",
  },
];

describe('lint rejects a wrong-way import in each layer', () => {
  for (const c of CASES) {
    it(c.layer, async () => {
      const wrong = await problems(c.file, c.wrong);
      expect(
        wrong.some((m) => c.says.test(m)),
        wrong.join('\n'),
      ).toBe(true);
      expect(await problems(c.file, c.right)).toEqual([]);
    });
  }
});

describe('lint rejects a function over 80 lines without a reason', () => {
  const body = (n: number) =>
    `export function long(): number {\n  let x = 0;\n${'  x += 1;\n'.repeat(n - 4)}  return x;\n}\n`;
  const lengthProblems = async (code: string) => {
    const [result] = await eslint.lintText(code, { filePath: join(root, 'src/engine/probe.ts') });
    return (result?.messages ?? []).map((m) => `${m.ruleId}: ${m.message}`);
  };

  it('80 lines pass, 81 fail, and a disable comment with its reason lets one through', async () => {
    expect(await lengthProblems(body(80))).toEqual([]);
    expect(await lengthProblems(body(81))).toEqual([
      "max-lines-per-function: Function 'long' has too many lines (81). Maximum allowed is 80.",
    ]);
    const excused = `// eslint-disable-next-line max-lines-per-function -- one table, read in order\n${body(81)}`;
    expect(await lengthProblems(excused)).toEqual([]);
  });
});
