/** The comparison and the view travel in share links and readable parameters, checked like the rest. */
import { describe, expect, it } from 'vitest';
import { readFlags, startingPoint } from '../boot.ts';
import { readScenario } from '../scenario/entry.ts';
import { encodeShare, readShare } from '../store/share.ts';
import { createLabStore } from '../store/lab-store.ts';
import type { LabDoc } from '../store/lab-store.ts';

const A = readScenario(
  'a',
  'title: A\nmanifests: "kind: Service"\nvariants:\n  - { id: one, title: One }\n  - { id: two, title: Two }\nprobes:\n  - { from: client/laptop, to: vip:22 }\n',
);

const doc: LabDoc = {
  scenarioId: 'a',
  variant: 'one',
  mode: null,
  manifests: 'kind: Service',
  path: { from: 'client/laptop', to: 'vip:22' },
  run: 0,
  step: 4,
};

describe('compare and view in links', () => {
  it('a share link carries them and the lab opens with them', () => {
    const link = encodeShare(doc, 'kind: Service', { compare: 'two', view: 'matrix' });
    const read = readShare(link);
    expect(read.ok && read.doc).toMatchObject({ variant: 'one', compare: 'two', view: 'matrix' });
    const start = startingPoint([A], readFlags('', `#lab=${link}`), null);
    expect(start?.extra).toMatchObject({ compare: 'two', view: 'matrix' });
    const store = createLabStore();
    if (!start) throw new Error('no start');
    store.actions.loadScenario(start.entry, start.restore, start.extra);
    expect([store.getState().compare, store.getState().view]).toEqual(['two', 'matrix']);
  });

  it('a link without them opens the diagram, nothing compared', () => {
    const read = readShare(encodeShare(doc, 'kind: Service'));
    expect(read.ok && 'compare' in read.doc).toBe(false);
    const start = startingPoint([A], readFlags('', `#lab=${encodeShare(doc, '')}`), null);
    expect(start?.extra.compare).toBeUndefined();
    expect(start?.extra.view).toBeUndefined();
  });

  it('?compare=VARIANT&view=matrix by hand; a variant that does not exist is said and dropped', () => {
    const ok = startingPoint(
      [A],
      readFlags('?scenario=a&variant=one&compare=two&view=matrix', ''),
      null,
    );
    expect(ok?.extra).toMatchObject({ compare: 'two', view: 'matrix' });
    expect(ok?.notes).toEqual([]);
    const original = startingPoint([A], readFlags('?scenario=a&compare=original', ''), null);
    expect(original?.extra.compare).toBe('original');
    const bad = startingPoint([A], readFlags('?scenario=a&compare=three', ''), null);
    expect(bad?.extra.compare).toBeUndefined();
    expect(bad?.notes).toEqual([
      { kind: 'invalid', param: 'compare', value: 'three', hint: 'one | two | original' },
    ]);
  });

  it('another scenario forgets the comparison; the view stays', () => {
    const store = createLabStore();
    store.actions.loadScenario(A, {}, { compare: 'two', view: 'matrix' });
    store.actions.loadScenario(A);
    expect([store.getState().compare, store.getState().view]).toEqual([null, 'matrix']);
  });
});
