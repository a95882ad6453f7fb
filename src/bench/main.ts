/**
 * `npm run bench`: the engine's speed figures on kube-proxy-shaped rulesets, each beside the
 * kernel's reference (`iptables-restore --test` on the same file), then the generator, cluster
 * and lab figures. The scripts are bundled like the site (vite SSR build), so the figures are
 * those of shipped code.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchCli } from './cli.ts';
import { benchEngine } from './engine.ts';
import { benchExtras } from './extras.ts';
import { benchNft } from './nft.ts';

// package.json builds src/bench/parse-file.ts next to this bundle's directory.
const parseEntry = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'hookpath-bench-parse',
  'parse-file.js',
);

benchEngine(parseEntry);
benchNft(parseEntry);
benchCli();
// `npm run bench:engine` stops here.
if (!process.env.BENCH_ONLY_ENGINE) await benchExtras();
