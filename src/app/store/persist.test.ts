/** What this browser saved is input too: restoring from any stored text never throws. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  asideKey,
  editKey,
  formatEdit,
  loadLast,
  parseEdit,
  readAside,
  type KeyValue,
} from './persist.ts';
import { pickStart, readFlags, startingPoint, firstInput } from '../boot.ts';
import { readScenario } from '../scenario/entry.ts';

const entry = readScenario(
  '000-vip22',
  'title: x\nmanifests: "kind: Service"\nvariants:\n  - { id: lb, title: LB }\nprobes:\n  - { from: client/laptop, to: vip:22 }\n',
);

class Stored implements KeyValue {
  constructor(private map: Map<string, string>) {}
  getItem = (k: string) => this.map.get(k) ?? null;
  setItem = (k: string, v: string) => void this.map.set(k, v);
  removeItem = (k: string) => void this.map.delete(k);
}

describe('restoring from storage', () => {
  it('reads the record format and the bare text of older versions', () => {
    expect(parseEdit('kind: Service')).toEqual({ text: 'kind: Service', valid: false, good: null });
    expect(parseEdit('{"hookpath-edit":2,"text":"a","good":"b"}')).toEqual({
      text: 'a',
      valid: false,
      good: 'b',
    });
    // A JSON manifests text is a text, not a record.
    expect(parseEdit('{"apiVersion":"v1"}')?.text).toBe('{"apiVersion":"v1"}');
  });

  it('writes texts unescaped and reads back exactly what it wrote (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.boolean(), fc.option(fc.string()), (text, valid, good) => {
        const raw = formatEdit({ text, valid, good });
        expect(raw.endsWith(`${text}${good !== null && good !== text ? good : ''}`)).toBe(true);
        expect(parseEdit(raw)).toEqual({
          text,
          valid,
          good: good !== null && good !== text && good !== '' ? good : null,
        });
      }),
    );
  });

  it('keeps the text of a record whose header is damaged', () => {
    const raw = formatEdit({ text: 'kind: Service\n', valid: true, good: null });
    expect(parseEdit(raw.replace('"length"', '"lenght"'))).toEqual({
      text: 'kind: Service\n',
      valid: false,
      good: null,
    });
  });

  it('drops a saved place with wrong types instead of failing every visit', () => {
    const kv = new Stored(
      new Map([
        [
          'hookpath:v1:last',
          JSON.stringify({ scenarioId: '000-vip22', variant: 7, mode: 'nft', path: { from: 1 } }),
        ],
      ]),
    );
    expect(loadLast(kv)).toEqual({
      scenarioId: '000-vip22',
      variant: null,
      mode: null,
      path: null,
    });
  });

  it('never throws, whatever the stored values are (property)', () => {
    const value = fc.oneof(
      fc.string(),
      fc.json(),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc
        .record({
          scenarioId: fc.oneof(fc.constant('000-vip22'), fc.anything()),
          variant: fc.anything(),
          path: fc.anything(),
        })
        .map((v) => JSON.stringify(v)),
      fc
        .record({
          'hookpath-edit': fc.anything(),
          text: fc.anything(),
          good: fc.anything(),
          valid: fc.anything(),
        })
        .map((v) => `{"hookpath-edit"${JSON.stringify(v).slice(16)}`),
      fc.tuple(fc.string(), fc.string()).map(([h, b]) => `\u0000hookpath-edit:3\n${h}\n${b}`),
    );
    const keys = [
      'hookpath:v1:last',
      editKey('000-vip22', null),
      editKey('000-vip22', 'lb'),
      asideKey('000-vip22', null),
    ];
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...keys), value), { maxLength: 6 }),
        fc.option(fc.string()),
        (pairs, scenario) => {
          const kv = new Stored(new Map(pairs));
          const flags = readFlags(
            scenario === null ? '' : `?scenario=${encodeURIComponent(scenario)}`,
            '',
          );
          const pick = pickStart(['000-vip22'], flags, kv);
          const start = startingPoint([entry], flags, kv);
          firstInput([{ id: '000-vip22', text: 'x' }], flags, kv);
          readAside(kv, '000-vip22', null).forEach((e) => expect(typeof e.text).toBe('string'));
          expect(pick?.id).toBe('000-vip22');
          const r = start?.restore;
          expect(r?.variant === null || r?.variant === 'lb').toBe(true);
          expect(r?.manifests === undefined || typeof r.manifests === 'string').toBe(true);
          if (r?.path)
            expect(typeof r.path.from === 'string' && typeof r.path.to === 'string').toBe(true);
        },
      ),
      { numRuns: 1500 },
    );
  });
});
