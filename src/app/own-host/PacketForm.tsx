/** The packet: from the wire on one of the host's interfaces, or sent by a local process. */
import { useTranslation } from 'react-i18next';
import type { OwnPacket } from '../../cluster/own-host/types.ts';
import { useOwn, useOwnStore } from './context.tsx';
import { Field } from './Field.tsx';

const PROTOS: readonly OwnPacket['proto'][] = ['tcp', 'udp', 'sctp', 'icmp'];

const DEFAULT_IFACES: readonly string[] = ['lo', 'eth0'];

// eslint-disable-next-line max-lines-per-function -- a React component: its hooks, handlers and one JSX tree, read top to bottom
export function PacketForm() {
  const { t } = useTranslation();
  const { actions } = useOwnStore();
  const p = useOwn((s) => s.packet);
  const ifaces = useOwn((s) => s.result?.interfaces ?? DEFAULT_IFACES);
  const set = (v: Partial<OwnPacket>) => actions.setPacket(v);
  const text = (k: 'src' | 'sport' | 'dst' | 'dport', placeholder: string) => (
    <Field label={t(`own.${k}`)} field={`packet.${k}`}>
      {(a) => (
        <input
          {...a}
          type="text"
          data-testid={`own-${k}`}
          placeholder={placeholder}
          value={p[k]}
          onChange={(e) => set({ [k]: e.target.value })}
        />
      )}
    </Field>
  );
  return (
    <section className="own-packet" aria-labelledby="own-packet-title">
      <h3 id="own-packet-title">{t('own.packet')}</h3>
      <fieldset className="own-from">
        <legend>{t('own.from')}</legend>
        <label className="own-check">
          <input
            type="radio"
            name="own-from"
            checked={p.from === 'wire'}
            onChange={() => set({ from: 'wire' })}
            data-testid="own-from-wire"
          />{' '}
          {t('own.from.wire')}
        </label>
        <select
          aria-label={t('own.iface')}
          value={p.iface}
          disabled={p.from !== 'wire'}
          onChange={(e) => set({ iface: e.target.value })}
          data-testid="own-iface"
        >
          {(ifaces.includes(p.iface) ? ifaces : [...ifaces, p.iface]).map((i) => (
            <option key={i} value={i}>
              {i}
            </option>
          ))}
        </select>
        <label className="own-check">
          <input
            type="radio"
            name="own-from"
            checked={p.from === 'local'}
            onChange={() => set({ from: 'local' })}
            data-testid="own-from-local"
          />{' '}
          {t('own.from.local')}
        </label>
      </fieldset>
      <div className="own-packet-grid">
        <Field label={t('own.proto')} field="packet.proto">
          {(a) => (
            <select
              {...a}
              value={p.proto}
              onChange={(e) => set({ proto: e.target.value as OwnPacket['proto'] })}
              data-testid="own-proto"
            >
              {PROTOS.map((x) => (
                <option key={x} value={x}>
                  {x}
                </option>
              ))}
            </select>
          )}
        </Field>
        {text('src', p.from === 'local' ? '(auto)' : '192.168.50.10')}
        {text('sport', '40000')}
        {text('dst', '192.168.50.100')}
        {p.proto !== 'icmp' && text('dport', '22')}
      </div>
    </section>
  );
}
