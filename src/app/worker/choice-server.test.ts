import { describe, expect, it } from 'vitest';
import type { DestinationChoice, SenderChoice } from '../../cluster/types.ts';
import { sshdWorkerView } from '../testing/lab-fixtures.ts';
import { createChoiceServer } from './choice-server.ts';
import { PICKER_MAX, packChoices } from './choices.ts';
import type { WorkerView } from './view.ts';

/** A result offering `n` pods and `n` Services, the run's own sender among the last. */
function bigView(n: number): WorkerView {
  const senders: SenderChoice[] = Array.from({ length: n }, (_, i) => ({
    id: `pod/app-${i}`,
    kind: 'pod',
    label: `app-${i}`,
    host: 'worker-1',
  }));
  senders.push({ id: 'client/client', kind: 'client', label: 'client', host: 'client' });
  const destinations: DestinationChoice[] = Array.from({ length: n }, (_, i) => ({
    id: `svc/svc-${i}:80`,
    kind: 'clusterip',
    label: `svc-${i}:80`,
    address: '10.96.0.1',
    port: 80,
    proto: 'tcp',
  }));
  return { ...sshdWorkerView(), choices: packChoices({ senders, destinations }) };
}

describe('path choices kept in the worker', () => {
  it('send the page their counts and the options it shows, not 80,000 choices', () => {
    const server = createChoiceServer();
    const view = server.forPage(bigView(40_000));
    const c = view.choices;
    expect(c?.senders).toBe(40_001);
    expect(c?.destinations).toBe(40_000);
    // The first options, and the run's own sender however far down it is.
    expect(c?.unfiltered.senders.shown).toHaveLength(PICKER_MAX + 1);
    expect(c?.unfiltered.senders.shown.at(-1)?.id).toBe('client/client');
    expect(c?.unfiltered.senders.more).toBe(40_001 - PICKER_MAX - 1);
    // What crosses to the page: tens of KB, where the packed choices were megabytes.
    expect(JSON.stringify(view).length).toBeLessThan(100_000);
  });

  it('answer a filter from the kept choices, the chosen options among the matches', () => {
    const server = createChoiceServer();
    const key = server.forPage(bigView(40_000)).choices?.key ?? -1;
    const query = { key, filter: ' SVC-3999', from: 'pod/app-1', to: 'svc/svc-39999:80' };
    const a = server.answer(query);
    expect(a?.query).toEqual(query);
    expect(a?.destinations.shown.map((d) => d.id)).toEqual([
      'svc/svc-3999:80',
      ...Array.from({ length: 10 }, (_, i) => `svc/svc-3999${i}:80`),
    ]);
    expect(a?.senders).toEqual({ shown: [], more: 0 });
  });

  it('forget the choices of older results: a late query gets null, not another result', () => {
    const server = createChoiceServer(2);
    const keys = [1, 2, 3].map(() => server.forPage(bigView(10)).choices?.key ?? -1);
    const ask = (key: number) => server.answer({ key, filter: 'app-1', from: '', to: '' });
    expect(ask(keys[0] as number)).toBeNull();
    expect(ask(keys[1] as number)?.senders.shown.map((s) => s.id)).toEqual(['pod/app-1']);
    expect(ask(keys[2] as number)?.senders.shown.map((s) => s.id)).toEqual(['pod/app-1']);
  });
});
