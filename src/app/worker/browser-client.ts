/** The lab client as the browser uses it: a module worker, and runLab in-thread as fallback. */
import { localChoices } from './choice-server.ts';
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
    answerInThread: (query) => localChoices.answer(query),
    // Slow past 8 s (the lab asks whether to wait); stopped at 60 s only if nobody chose to wait.
    timeoutMs: 8000,
    hardTimeoutMs: 60_000,
  });
}
