/** Where a lab starts when its address names a place in readable parameters (boot.ts). */
import { describe, expect, it } from 'vitest';
import { firstInput, readFlags, startingPoint } from '../boot.ts';
import { readScenario } from '../scenario/entry.ts';
import { editKey, formatEdit, type KeyValue } from '../store/persist.ts';
import { createLabInstance } from '../instance.ts';
import { fakeClient } from '../testing/fake-client.ts';

const A = readScenario(
  'a',
  'title: A\nmanifests: "kind: Service"\nvariants:\n  - { id: one, title: One }\n  - { id: two, title: Two }\nprobes:\n  - { from: client/laptop, to: vip:22 }\n',
);
const B = readScenario('b', 'title: B\nmanifests: "kind: Pod"\n');
const files = [A, B].map((e) => ({ id: e.id, text: e.text }));

/** Storage that records every key read or written. */
class Spy implements KeyValue {
  readonly touched: string[] = [];
  constructor(private map = new Map<string, string>()) {}
  getItem = (k: string) => (this.touched.push(k), this.map.get(k) ?? null);
  setItem = (k: string, v: string) => void (this.touched.push(k), this.map.set(k, v));
  removeItem = (k: string) => void (this.touched.push(k), this.map.delete(k));
}

const mine = () =>
  new Spy(
    new Map([
      [editKey('b', null), formatEdit({ text: 'kind: Mine', valid: true, good: null })],
      ['hookpath:v1:last', JSON.stringify({ scenarioId: 'b', variant: null, path: null })],
    ]),
  );

describe('readable parameters naming a place', () => {
  it('open the scenario as published at that place; the saved edit is offered, not shown', () => {
    const flags = readFlags('?scenario=b&step=3', '');
    const start = startingPoint([A, B], flags, mine());
    expect(start?.entry.id).toBe('b');
    expect(start?.restore.manifests).toBeUndefined();
    expect(start?.extra.conflict).toEqual({ kind: 'link', mine: 'kind: Mine' });
    expect(start?.readable).toBe(true);
    expect(start?.notes).toEqual([]);
  });

  it('without a scenario they mean the first one, not the last place of this browser', () => {
    const start = startingPoint([A, B], readFlags('?variant=two', ''), mine());
    expect(start?.entry.id).toBe('a');
    expect(start?.restore.variant).toBe('two');
  });

  it('half a path takes the other half from the scenario', () => {
    const start = startingPoint([A, B], readFlags('?scenario=a&to=svc/web:80', ''), null);
    expect(start?.restore.path).toEqual({ from: 'client/laptop', to: 'svc/web:80' });
    const whole = readFlags('?scenario=a&from=node/cp-1&to=vip:22', '');
    expect(firstInput(files, whole, null)?.path).toEqual({ from: 'node/cp-1', to: 'vip:22' });
  });

  it('an unknown scenario or variant is replaced and noted', () => {
    const s = startingPoint([A, B], readFlags('?scenario=nope&step=2', ''), null);
    expect(s?.entry.id).toBe('a');
    expect(s?.readable).toBe(false);
    expect(s?.notes).toEqual([{ kind: 'scenario', param: 'scenario', value: 'nope' }]);
    const v = startingPoint([A, B], readFlags('?scenario=a&variant=three', ''), null);
    expect(v?.restore.variant).toBeNull();
    expect(v?.notes).toEqual([{ kind: 'variant', param: 'variant', value: 'three' }]);
  });

  it('a scenario alone still opens the saved edit (it names no place)', () => {
    const start = startingPoint([A, B], readFlags('?scenario=b', ''), mine());
    expect(start?.restore.manifests).toBe('kind: Mine');
    expect(start?.extra.conflict).toBeNull();
  });
});

describe('an embed', () => {
  it('neither reads nor writes this browser’s storage, whatever it does', async () => {
    const spy = mine();
    const g = globalThis as { localStorage?: KeyValue };
    g.localStorage = spy;
    try {
      const flags = readFlags('?embed=1&scenario=b', '');
      expect(firstInput(files, flags, null)?.manifests).toBeUndefined();
      const lab = createLabInstance([A, B], flags, fakeClient(), {
        whenVisible: (run) => (run(), () => undefined),
      });
      expect(lab.store.getState().doc.manifests).toBe('kind: Pod');
      await new Promise((r) => setTimeout(r, 20));
      lab.store.actions.setManifests('kind: Changed');
      lab.store.actions.setVariant('one');
      await new Promise((r) => setTimeout(r, 400));
      lab.dispose();
      expect(spy.touched).toEqual([]);
    } finally {
      delete g.localStorage;
    }
  });
});
