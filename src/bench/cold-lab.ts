/**
 * One cold simulation in a fresh process, as the lab's worker runs it on a first visit: nothing
 * compiled, nothing cached. `npm run bench` runs this bundled file (bundled like the CLI: yaml's
 * browser build, the one the worker loads) and reads the JSON line it prints.
 *   node cold-lab.js SERVICES REPLICAS
 */
import { readFileSync } from 'node:fs';
import { runLab } from '../cluster/lab.ts';
import { labView } from '../app/worker/view.ts';
import { bigManifests } from './big-manifests.ts';

const services = Number(process.argv[2] ?? 5000);
const replicas = Number(process.argv[3] ?? 1);
const scenario = readFileSync('scenarios/vip22-sshd-or-service.yaml', 'utf8');
const manifests = bigManifests(services, replicas);
const t0 = performance.now();
const c0 = process.cpuUsage();
const view = labView(runLab({ scenario, manifests, validate: false }));
const ms = performance.now() - t0;
// CPU time of this process (the GC's threads included): on a loaded machine, nearer to what the
// run takes alone than the wall time.
const c = process.cpuUsage(c0);
const cpuMs = (c.user + c.system) / 1000;
// What the page receives: the clone the worker posts (serialised and read back here).
const t1 = performance.now();
structuredClone({ type: 'result', id: 1, result: view, ms });
const cloneMs = performance.now() - t1;
process.stdout.write(
  `${JSON.stringify({ ms, cpuMs, cloneMs, ok: view.ok, bytes: JSON.stringify(view).length })}\n`,
);
