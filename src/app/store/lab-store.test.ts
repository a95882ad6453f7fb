import { describe, expect, it } from 'vitest';
import { createLabStore, stepsOf } from './lab-store.ts';
import { createLabController } from './controller.ts';
import { decodeShare, encodeShare } from './share.ts';
import { loadEdit } from './persist.ts';
import { brokenResult, podResult, sshdResult } from '../testing/lab-fixtures.ts';
import { MemoryStorage, fakeClient } from '../testing/fake-client.ts';
import { readScenario } from '../scenario/entry.ts';
import type { LabClient } from '../worker/client.ts';
import type { RunOutcome } from '../worker/protocol.ts';

const SCENARIO = `title: { en: VIP 22, zh: VIP 22 }
description: { en: d, zh: d }
manifests: |
  apiVersion: v1
  kind: Service
probes:
  - { from: client, to: vip:22, expect: { outcome: answered } }
`;
const entry = readScenario('000-vip22', SCENARIO);

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

describe('lab store', () => {
  it('two stores never share state', () => {
    const a = createLabStore();
    const b = createLabStore();
    a.actions.loadScenario(entry);
    a.actions.setManifests('changed');
    expect(b.getState().doc.manifests).toBe('');
    expect(a.getState().doc.manifests).toBe('changed');
  });

  it('loads a scenario with its manifests and default path', () => {
    const s = createLabStore();
    s.actions.loadScenario(entry);
    expect(s.getState().doc).toMatchObject({
      scenarioId: '000-vip22',
      path: { from: 'client', to: 'vip:22' },
      step: 0,
    });
    expect(s.getState().doc.manifests).toContain('kind: Service');
  });

  it('keeps the last good result, marked stale, while the YAML is broken', () => {
    const s = createLabStore();
    s.actions.loadScenario(entry);
    s.actions.receive({ kind: 'result', result: podResult(), ms: 1 });
    expect(s.getState().stale).toBe(false);
    s.actions.receive({ kind: 'result', result: brokenResult(3, 'oops'), ms: 1 });
    expect(s.getState().stale).toBe(true);
    expect(s.getState().result?.runs[0]?.outcome.kind).toBe('answered');
    expect(s.getState().diagnostics[0]?.message).toBe('oops');
    s.actions.receive({ kind: 'result', result: sshdResult(), ms: 1 });
    expect(s.getState().stale).toBe(false);
    expect(s.getState().diagnostics).toEqual([]);
  });

  it('steps forward and back, skipping rules that did not match', () => {
    const s = createLabStore();
    s.actions.loadScenario(entry);
    s.actions.receive({ kind: 'result', result: podResult(), ms: 1 });
    const steps = stepsOf(s.getState());
    const miss = steps.findIndex((x) => x.miss);
    s.actions.setStep(miss - 1);
    s.actions.stepBy(1);
    expect(s.getState().doc.step).toBe(miss + 1);
    s.actions.stepBy(-1);
    expect(s.getState().doc.step).toBe(miss - 1);
    s.actions.setHideMisses(false);
    s.actions.stepBy(1);
    expect(s.getState().doc.step).toBe(miss);
    s.actions.toEnd();
    expect(s.getState().doc.step).toBe(steps.length - 1);
    s.actions.setStep(10_000);
    expect(s.getState().doc.step).toBe(steps.length - 1);
  });

  it('a share link restores the exact step', () => {
    const s = createLabStore();
    s.actions.loadScenario(entry);
    s.actions.setManifests(`${entry.manifests}# edited\n`);
    s.actions.receive({ kind: 'result', result: podResult(), ms: 1 });
    s.actions.setStep(14);
    const link = encodeShare(s.getState().doc, s.getState().original);
    const doc = decodeShare(link);
    expect(doc).toMatchObject({
      scenarioId: '000-vip22',
      step: 14,
      manifests: `${entry.manifests}# edited\n`,
    });
    const t = createLabStore();
    t.actions.loadScenario(entry, doc ?? {});
    t.actions.receive({ kind: 'result', result: podResult(), ms: 1 });
    expect(t.getState().doc).toEqual(s.getState().doc);
    expect(decodeShare('not-a-link')).toBeNull();
  });
});

describe('lab controller', () => {
  it('re-simulates after the debounce and saves the edit', async () => {
    const s = createLabStore();
    const client = fakeClient();
    const storage = new MemoryStorage();
    const c = createLabController(s, client, { debounceMs: 5, saveMs: 1, storage });
    s.actions.loadScenario(entry);
    await tick(1);
    expect(client.inputs).toHaveLength(1);
    s.actions.setManifests('type: Load');
    s.actions.setManifests('type: LoadBalancer');
    await tick(20);
    expect(client.inputs).toHaveLength(2);
    expect(s.getState().result?.runs[0]?.outcome).toMatchObject({
      kind: 'answered',
      host: 'nettest',
    });
    expect(loadEdit(storage, '000-vip22', null)).toBe('type: LoadBalancer');
    s.actions.resetManifests();
    await tick(5);
    expect(loadEdit(storage, '000-vip22', null)).toBeNull();
    c.dispose();
  });

  it('plays to the end and stops', async () => {
    const s = createLabStore();
    const c = createLabController(s, fakeClient(), { stepMs: 1 });
    s.actions.loadScenario(entry);
    await tick(1);
    s.actions.setPlaying(true);
    await tick(200);
    expect(s.getState().playing).toBe(false);
    expect(s.getState().doc.step).toBe(stepsOf(s.getState()).length - 1);
    c.dispose();
  });
});

describe('a slow simulation', () => {
  /** A client whose runs wait for the test: it reports them slow and answers when told. */
  function slowClient() {
    const calls: { noLimit: boolean; answer: (o: RunOutcome) => void }[] = [];
    const log: string[] = [];
    const client: LabClient = {
      ...fakeClient(),
      run: (_input, opts = {}) =>
        new Promise<RunOutcome>((answer) => {
          calls.push({ noLimit: opts.noLimit ?? false, answer });
          opts.onSlow?.();
        }),
      keepWaiting: () => void log.push('wait'),
      stop: () => {
        log.push('stop');
        calls.at(-1)?.answer({ kind: 'error', reason: 'timeout', message: 'stopped after 9 s' });
      },
    };
    return { client, calls, log };
  }

  it('asks whether to wait; waiting, then the answer, clears the question', async () => {
    const s = createLabStore();
    s.actions.loadScenario(entry);
    const { client, calls, log } = slowClient();
    const c = createLabController(s, client, { debounceMs: 0 });
    const done = c.runNow();
    expect(s.getState().slow).toBe('asked');
    c.edits.keepWaiting();
    expect(log).toEqual(['wait']);
    expect(s.getState().slow).toBe('waiting');
    calls[0]?.answer({ kind: 'result', result: podResult(), ms: 9000 });
    await done;
    expect(s.getState().slow).toBeNull();
    expect(s.getState().result?.runs[0]?.outcome.kind).toBe('answered');
    c.dispose();
  });

  it('an answer that arrives after a variant switch is labelled with the variant it was for', async () => {
    const s = createLabStore();
    s.actions.loadScenario(entry);
    const { client, calls } = slowClient();
    const c = createLabController(s, client, { debounceMs: 0 });
    const done = c.runNow();
    s.actions.setVariant('other');
    calls[0]?.answer({ kind: 'result', result: podResult(), ms: 1 });
    await done;
    // On screen until the switch is simulated, but as the default variant's answer.
    expect(s.getState().result).not.toBeNull();
    expect(s.getState().resultFor).toEqual({ variant: null, mode: null });
    expect(s.getState().doc.variant).toBe('other');
    c.dispose();
  });

  it('stopped: says so without blaming the manifests, and runs it again to the end', async () => {
    const s = createLabStore();
    s.actions.loadScenario(entry);
    s.actions.receive({ kind: 'result', result: sshdResult(), ms: 1 });
    const { client, calls } = slowClient();
    const c = createLabController(s, client, { debounceMs: 0 });
    const done = c.runNow();
    c.edits.stopRun();
    await done;
    expect(s.getState()).toMatchObject({ slow: null, failure: { reason: 'timeout' } });
    // The last result stays; the diagram marks it as not the newest.
    expect(s.getState().result?.runs[0]?.outcome.kind).toBe('answered');
    c.edits.runToEnd();
    await tick();
    expect(calls.at(-1)?.noLimit).toBe(true);
    c.dispose();
  });
});
