/**
 * The "Your host" view's state: the form (saved on every change), the newest result of the worker
 * and the last one that traced (kept on screen, marked stale, while the input has errors), and a
 * lab store of its own that the lab's verdict, trace and rules panels read.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { OwnDump, OwnExtras, OwnPacket } from '../../cluster/own-host/types.ts';
import type { OwnHostClient } from '../worker/own-host-client.ts';
import type { OwnHostView } from '../worker/own-host-protocol.ts';
import { createLabStore, type LabStore } from '../store/lab-store.ts';
import type { KeyValue, SaveFailure } from '../store/persist.ts';
import { loadForm, saveForm, type OwnForm } from './saved.ts';

export interface OwnState extends OwnForm {
  readonly result: OwnHostView | null;
  readonly running: boolean;
  readonly failure: string | null;
  readonly storageFailure: SaveFailure | null;
}

export interface OwnActions {
  addDump(name: string, text: string, kind: OwnDump['kind']): void;
  setDumpKind(id: string, kind: OwnDump['kind']): void;
  removeDump(id: string): void;
  clear(): void;
  setExtras(e: Partial<OwnExtras>): void;
  setPacket(p: Partial<OwnPacket>): void;
}

export type OwnStore = StoreApi<OwnState> & {
  readonly actions: OwnActions;
  /** The trace, as the lab's panels read it. */
  readonly lab: LabStore;
  dispose(): void;
};

export function createOwnStore(
  client: OwnHostClient,
  kv: KeyValue | null,
  delayMs = 250,
): OwnStore {
  const store = createStore<OwnState>()(() => ({
    ...loadForm(kv),
    result: null,
    running: false,
    failure: null,
    storageFailure: null,
  }));
  const lab = createLabStore();
  const get = store.getState;
  let timer: ReturnType<typeof setTimeout> | null = null;

  const run = async () => {
    timer = null;
    const s = get();
    store.setState({ running: true });
    const o = await client.run({
      dumps: s.dumps,
      extras: s.extras,
      packet: s.packet.dst.trim() ? s.packet : null,
    });
    if (o.kind === 'superseded') return;
    if (o.kind === 'error') {
      store.setState({ running: false, failure: o.message });
      return;
    }
    store.setState({ running: false, failure: null, result: o.result });
    const view = o.result.lab;
    if (view) {
      lab.actions.receive({ kind: 'result', result: view, ms: o.ms });
      lab.actions.toEnd();
    } else lab.setState({ stale: lab.getState().result !== null });
  };
  const schedule = (now = false) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void run(), now ? 0 : delayMs);
  };
  const change = (form: Partial<OwnForm>) => {
    store.setState(form);
    const s = get();
    const saved = saveForm(kv, { dumps: s.dumps, extras: s.extras, packet: s.packet });
    store.setState({ storageFailure: saved.ok ? null : saved.reason });
    schedule();
  };
  let n = 0;
  const newId = () => `${Date.now().toString(36)}-${(n++).toString(36)}`;

  const actions: OwnActions = {
    addDump(name, text, kind) {
      change({ dumps: [...get().dumps, { id: newId(), name, text, kind }] });
    },
    setDumpKind(id, kind) {
      change({ dumps: get().dumps.map((d) => (d.id === id ? { ...d, kind } : d)) });
    },
    removeDump(id) {
      change({ dumps: get().dumps.filter((d) => d.id !== id) });
    },
    clear() {
      change({ dumps: [] });
    },
    setExtras(e) {
      change({ extras: { ...get().extras, ...e } });
    },
    setPacket(p) {
      change({ packet: { ...get().packet, ...p } });
    },
  };
  schedule(true);
  return Object.assign(store, {
    actions,
    lab,
    dispose() {
      if (timer) clearTimeout(timer);
      timer = null;
      client.dispose();
    },
  });
}
