/** The lab client as the browser uses it: a module worker, and runLab in-thread as fallback. */
import { createLabClient, type LabClient, type WorkerLike } from './client.ts';

export function createBrowserClient(): LabClient {
  return createLabClient({
    createWorker: () =>
      typeof Worker === 'undefined'
        ? null
        : (new Worker(new URL('./lab.worker.ts', import.meta.url), {
            type: 'module',
            name: 'hookpath-lab',
          }) as unknown as WorkerLike),
    loadInThread: async () => {
      const [{ runLab }, { labView }] = await Promise.all([
        import('../../cluster/lab.ts'),
        import('./view.ts'),
      ]);
      return (input) => labView(runLab(input));
    },
    loadCheckInThread: async () => (await import('../../exercise/check.ts')).checkInput,
    timeoutMs: 8000,
  });
}
