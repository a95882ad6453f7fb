/**
 * "Your host" (issue 14 §3): a view beside Diagram and Matrix where a real node's dumps are
 * pasted or dropped, built into a host in the worker and traced. Nothing leaves the browser.
 */
import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useStore } from 'zustand';
import { createBrowserOwnHostClient } from '../worker/own-host-client.ts';
import { browserStorage } from '../store/persist.ts';
import { OwnContext } from './context.tsx';
import { createOwnStore } from './own-store.ts';
import { DumpInput } from './DumpInput.tsx';
import { DumpList } from './DumpList.tsx';
import { HostFields } from './HostFields.tsx';
import { PacketForm } from './PacketForm.tsx';
import { OwnTrace } from './OwnTrace.tsx';
import '../styles/own-host.css';

/** The one-line commands, as the README's "Trace a packet through your own node" gives them. */
export const COMMANDS = [
  'iptables-save > iptables.txt',
  'ip6tables-save > ip6tables.txt',
  'nft list ruleset > nft.txt',
  'ip -j addr > addr.json',
  'ip -j route > route.json',
  'ip -j -6 route > route6.json',
  'ipset save > ipset.txt',
  'ipvsadm -Ln > ipvsadm.txt',
];

export function OwnHostView({ lead }: { lead: ReactNode }) {
  const { t } = useTranslation();
  const [store] = useState(() => createOwnStore(createBrowserOwnHostClient(), browserStorage()));
  useEffect(() => () => store.dispose(), [store]);
  const storage = useStore(store, (s) => s.storageFailure);
  return (
    <OwnContext.Provider value={store}>
      <div className="own-host" data-testid="own-host">
        <div className="own-toolbar">{lead}</div>
        <h2 className="own-title">{t('own.title')}</h2>
        <p className="own-intro">{t('own.intro')}</p>
        <details className="own-commands">
          <summary>{t('own.commands')}</summary>
          <pre>{COMMANDS.join('\n')}</pre>
        </details>
        {storage && (
          <p className="own-error" role="alert" data-testid="own-storage">
            {t(`notice.storage.${storage}`)}
          </p>
        )}
        <div className="own-columns">
          <div className="own-col">
            <DumpInput />
            <DumpList />
          </div>
          <div className="own-col">
            <HostFields />
            <PacketForm />
          </div>
        </div>
        <OwnTrace />
      </div>
    </OwnContext.Provider>
  );
}
