/** The "Your host" store, provided to the view's parts. */
import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { OwnState, OwnStore } from './own-store.ts';

export const OwnContext = createContext<OwnStore | null>(null);

export function useOwnStore(): OwnStore {
  const s = useContext(OwnContext);
  if (!s) throw new Error('useOwn outside the Your host view');
  return s;
}

export function useOwn<T>(selector: (s: OwnState) => T): T {
  return useStore(useOwnStore(), selector);
}
