/** Times the engine's nft parser on a file, in a fresh process (CPU ms, 1 cold + 3 warm runs). */
import { readFileSync } from 'node:fs';
import { parseNftRuleset } from '../engine/nft/parse.ts';

const text = readFileSync(process.argv[2] as string, 'utf8');
const cpu = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const times: number[] = [];
for (let i = 0; i < Number(process.argv[3] ?? 4); i++) {
  const c0 = cpu();
  const r = parseNftRuleset(text);
  times.push(Math.round(cpu() - c0));
  if (r.diagnostics.some((d) => d.severity === 'error')) throw new Error('errors');
}
process.stdout.write(`${JSON.stringify(times)}\n`);
