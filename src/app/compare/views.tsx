/**
 * The lab's two extra views, beside the diagram: the probe matrix and the comparison. Made per
 * lab (like its store), with their workers started only once the user opens one of them.
 */
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { StoreApi } from 'zustand/vanilla';
import type { LabStore } from '../store/lab-store.ts';
import type { LabClient } from '../worker/client.ts';
import { createBrowserClient } from '../worker/browser-client.ts';
import { createBrowserMatrixClient, type MatrixClient } from '../worker/matrix-client.ts';
import { createMatrixController, type MatrixState } from '../matrix/controller.ts';
import { createCompareController, type CompareState } from './controller.ts';

export interface Views {
  readonly matrix: StoreApi<MatrixState>;
  readonly compare: StoreApi<CompareState>;
  /** The B pane's store. */
  readonly pane: LabStore;
  goToDivergence(): void;
  dispose(): void;
}

export interface ViewClients {
  readonly lab: () => LabClient;
  readonly matrix: () => MatrixClient;
}

const BROWSER: ViewClients = { lab: createBrowserClient, matrix: createBrowserMatrixClient };

export function createViews(store: LabStore, clients: ViewClients = BROWSER): Views {
  let lab: LabClient | null = null;
  let matrix: MatrixClient | null = null;
  const m = createMatrixController(store, () => (matrix ??= clients.matrix()));
  const c = createCompareController(store, () => (lab ??= clients.lab()));
  return {
    matrix: m.state,
    compare: c.state,
    pane: c.pane,
    goToDivergence: c.goToDivergence,
    dispose() {
      m.dispose();
      c.dispose();
      lab?.dispose();
      matrix?.dispose();
    },
  };
}

const ViewsContext = createContext<Views | null>(null);

export function ViewsProvider({
  store,
  clients,
  children,
}: {
  store: LabStore;
  clients?: ViewClients;
  children: ReactNode;
}) {
  const [views, setViews] = useState<Views | null>(null);
  useEffect(() => {
    const v = createViews(store, clients);
    setViews(v);
    return () => v.dispose();
  }, [store, clients]);
  return <ViewsContext.Provider value={views}>{children}</ViewsContext.Provider>;
}

export function useViews(): Views | null {
  return useContext(ViewsContext);
}

const NO_MATRIX: MatrixState = { a: null, b: null };
const NO_COMPARE: CompareState = {
  status: 'off',
  message: null,
  divergence: null,
  same: false,
  at: 0,
};
const idle = {
  matrix: { getState: () => NO_MATRIX, subscribe: () => () => undefined },
  compare: { getState: () => NO_COMPARE, subscribe: () => () => undefined },
};

export function useMatrix<T>(sel: (s: MatrixState) => T): T {
  const v = useViews();
  return useStore((v?.matrix ?? idle.matrix) as StoreApi<MatrixState>, sel);
}

export function useCompare<T>(sel: (s: CompareState) => T): T {
  const v = useViews();
  return useStore((v?.compare ?? idle.compare) as StoreApi<CompareState>, sel);
}
