import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DestinationChoice, SenderChoice } from '../../cluster/types.ts';
import { choiceLists, packChoices } from './choices.ts';

/** What the picker listed before the columns: the options as objects, filtered one by one. */
function reference<T extends { id: string; label: string }>(
  all: readonly T[],
  filter: string,
  chosen: string,
  max: number,
): { shown: T[]; more: number } {
  const f = filter.trim().toLowerCase();
  const shown: T[] = [];
  let matching = 0;
  for (const o of all) {
    if (f && !o.label.toLowerCase().includes(f) && !o.id.toLowerCase().includes(f)) continue;
    matching++;
    if (shown.length < max || o.id === chosen) shown.push(o);
  }
  return { shown, more: matching - shown.length };
}

const word = fc.constantFrom(
  'web',
  'Web',
  'pod',
  'svc-1',
  'svc-12',
  '10.0.0.1',
  'a',
  '',
  'x\u0001y',
);
const name = fc.array(word, { minLength: 1, maxLength: 3 }).map((w) => w.join('-'));
const sender = fc.record({
  id: name.map((n) => `pod/${n}`),
  kind: fc.constant('pod' as const),
  label: name,
  host: name,
});
const dest = fc.record({
  id: name.map((n) => `svc/${n}:80`),
  kind: fc.constant('clusterip' as const),
  label: name,
  address: fc.constant('10.96.0.1'),
  port: fc.integer({ min: 1, max: 65535 }),
  proto: fc.constant('tcp' as const),
});

describe('path choices as columns', () => {
  it('list what the objects listed, for any filter, chosen option and limit', () => {
    fc.assert(
      fc.property(
        // Ids are unique, as pathChoices makes them.
        fc.uniqueArray(sender, { maxLength: 30, selector: (x) => x.id }),
        fc.uniqueArray(dest, { maxLength: 30, selector: (x) => x.id }),
        fc.oneof(word, fc.constant('  WEB '), fc.constant('1')),
        fc.nat(40),
        fc.integer({ min: 1, max: 10 }),
        (senders, destinations, filter, pick, max) => {
          const lists = choiceLists(structuredClone(packChoices({ senders, destinations })));
          const chosenS = senders[pick % Math.max(1, senders.length)]?.id ?? '';
          const chosenD = destinations[pick % Math.max(1, destinations.length)]?.id ?? '';
          expect(lists.senders.length).toBe(senders.length);
          expect(lists.senders.bounded(filter, chosenS, max)).toEqual(
            reference<SenderChoice>(senders, filter, chosenS, max),
          );
          expect(lists.destinations.bounded(filter, chosenD, max)).toEqual(
            reference<DestinationChoice>(destinations, filter, chosenD, max),
          );
        },
      ),
    );
  });

  it('send 80,000 choices as a few strings, not 80,000 objects', () => {
    const senders: SenderChoice[] = Array.from({ length: 80_000 }, (_, i) => ({
      id: `pod/app-${i}`,
      kind: 'pod',
      label: `app-${i}`,
      host: `app-${i}`,
    }));
    const packed = packChoices({ senders, destinations: [] });
    expect(Object.values(packed.senders.columns).every((c) => typeof c === 'string')).toBe(true);
    const lists = choiceLists(packed);
    const { shown, more } = lists.senders.bounded('APP-7999', 'pod/app-79999', 150);
    expect(shown.map((s) => s.id)).toEqual([
      'pod/app-7999',
      ...Array.from({ length: 10 }, (_, i) => `pod/app-7999${i}`),
    ]);
    expect(more).toBe(0);
    // Unfiltered: the first 150 and the chosen one far down the list.
    const all = lists.senders.bounded('', 'pod/app-79999', 150);
    expect(all.shown).toHaveLength(151);
    expect(all.shown[150]?.id).toBe('pod/app-79999');
    expect(all.more).toBe(80_000 - 151);
  });
});
