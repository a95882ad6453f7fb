/** The "Your host" form over a reload: kept as written, a broken save ignored, a full storage said. */
import { describe, expect, it } from 'vitest';
import type { KeyValue } from '../store/persist.ts';
import { EMPTY_FORM, loadForm, saveForm } from './saved.ts';

function memory(): KeyValue & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    getItem: (k) => data.get(k) ?? null,
    setItem: (k, v) => void data.set(k, v),
    removeItem: (k) => void data.delete(k),
  };
}

describe('the saved form', () => {
  it('comes back as it was saved', () => {
    const kv = memory();
    const form = {
      ...EMPTY_FORM,
      dumps: [
        { id: 'a', name: 'iptables.txt', text: '*filter\nCOMMIT\n', kind: 'iptables' as const },
      ],
      packet: { ...EMPTY_FORM.packet, dst: '192.168.50.100', proto: 'udp' as const },
    };
    expect(saveForm(kv, form)).toEqual({ ok: true });
    expect(loadForm(kv)).toEqual(form);
  });

  it('ignores what it did not write, field by field', () => {
    const kv = memory();
    kv.setItem(
      'hookpath:v1:pref:own-host',
      '{"dumps":[{"id":1},{"id":"b","text":"x","kind":"bogus"}],"packet":{"proto":"gre","dst":"10.0.0.1"}}',
    );
    const f = loadForm(kv);
    expect(f.dumps).toEqual([{ id: 'b', name: 'pasted', text: 'x', kind: 'auto' }]);
    expect(f.packet.proto).toBe('tcp');
    expect(f.packet.dst).toBe('10.0.0.1');
    kv.setItem('hookpath:v1:pref:own-host', '{not json');
    expect(loadForm(kv)).toEqual(EMPTY_FORM);
  });

  it('says when the storage is full or missing', () => {
    const full: KeyValue = {
      getItem: () => null,
      removeItem: () => undefined,
      setItem: () => {
        throw Object.assign(new Error('full'), { name: 'QuotaExceededError' });
      },
    };
    expect(saveForm(full, EMPTY_FORM)).toEqual({ ok: false, reason: 'quota' });
    expect(saveForm(null, EMPTY_FORM)).toEqual({ ok: false, reason: 'unavailable' });
  });
});
