/**
 * CLI start-up (issue 13: at most 300 ms): `hookpath help` and `hookpath run` on a small scenario
 * as whole processes through the package's `bin` (src/cli/hookpath.sh, which starts node),
 * alternating with a bare `node` start, which no entry can beat and so is the floor to read the
 * figures against.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { figure, fmt, timeProcess } from './engine.ts';

const RUNS = 7;

export function benchCli(root = process.cwd()): void {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    bin: { hookpath: string };
  };
  const bin = join(root, pkg.bin.hookpath);
  const scenario = join(root, 'scenarios/vip22-sshd-or-service.yaml');
  const floor: number[] = [];
  const help: number[] = [];
  const run: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    floor.push(timeProcess(process.execPath, ['-e', '0']));
    // The bin is a POSIX sh launcher (hookpath.sh), run as its #!/bin/sh line would.
    help.push(timeProcess('sh', [bin, 'help']));
    run.push(timeProcess('sh', [bin, 'run', scenario]));
  }
  const f = figure(floor);
  const h = figure(help);
  const r = figure(run);
  console.log(
    `CLI start-up (${pkg.bin.hookpath}), ${RUNS} alternating runs: hookpath help ${fmt(h)}   goal <= 300 ms; hookpath run vip22-sshd-or-service.yaml ${fmt(r)}; bare node ${fmt(f)} (the floor; help is ${(h.median / f.median).toFixed(1)}x)`,
  );
}
