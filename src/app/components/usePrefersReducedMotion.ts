import { useSyncExternalStore } from 'react';

const QUERY = '(prefers-reduced-motion: reduce)';

function subscribe(cb: () => void): () => void {
  const m = globalThis.matchMedia?.(QUERY);
  m?.addEventListener('change', cb);
  return () => m?.removeEventListener('change', cb);
}

/** True when the user asked the system for less motion: the token then jumps, never glides. */
export function usePrefersReducedMotion(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => globalThis.matchMedia?.(QUERY).matches ?? false,
    () => false,
  );
}
