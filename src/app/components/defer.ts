/**
 * Big results are drawn in a deferred render: React renders the rest of the page first and the
 * deferred part in a later, time-sliced pass, so a 5,000-Service result's arrival is not one long
 * task of the page's main thread. Small results render at once: deferring them only adds a pass
 * (an ordinary edit's redraw went from ~0.2-0.5 s to ~0.5-0.8 s at load 12x the cores).
 */
import { useDeferredValue } from 'react';
import type { ChoicesSummary } from '../worker/choices.ts';

/** Path choices past which a result counts as big (5,000 Services offer ~15,000). */
export const DEFER_FROM = 2_000;

export function isBig(choices: ChoicesSummary | null | undefined): boolean {
  return !!choices && choices.senders + choices.destinations > DEFER_FROM;
}

/** `value` as a deferred value when `defer`, as it is otherwise. */
export function useDeferredWhen<T>(value: T, defer: boolean): T {
  const deferred = useDeferredValue(value);
  return defer ? deferred : value;
}
