import { useMediaQuery } from './useMediaQuery.ts';

/** True when the user asked the system for less motion: the token then jumps, never glides. */
export function usePrefersReducedMotion(): boolean {
  return useMediaQuery('(prefers-reduced-motion: reduce)');
}
