/** Further benchmark sections (generator, scenarios, UI build). */
import { benchGenerator } from '../kube/proxier/bench.ts';
import { benchCluster } from './cluster.ts';
import { benchLabEdits } from './lab-edit.ts';

export async function benchExtras(): Promise<void> {
  const g = benchGenerator();
  console.log(
    `\nkube-proxy generator, 10,000 Services x 3 endpoints (${g.rules} rules): median ${g.ms.toFixed(0)} ms, first ${g.firstMs.toFixed(0)} ms`,
  );
  benchCluster();
  console.log('');
  benchLabEdits();
}
