/**
 * One lab = one store, client and controller, provided through a React Context (as xyflow does
 * with a store per instance), so two embeds on one page never share state.
 */
import { createContext, useContext, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { LabActions, LabState, LabStore } from '../store/lab-store.ts';

const LabContext = createContext<LabStore | null>(null);

export function LabProvider({ store, children }: { store: LabStore; children: ReactNode }) {
  return <LabContext.Provider value={store}>{children}</LabContext.Provider>;
}

export function useLabStore(): LabStore {
  const s = useContext(LabContext);
  if (!s) throw new Error('useLab outside a LabProvider');
  return s;
}

export function useLab<T>(selector: (s: LabState) => T): T {
  return useStore(useLabStore(), selector);
}

export function useActions(): LabActions {
  return useLabStore().actions;
}
