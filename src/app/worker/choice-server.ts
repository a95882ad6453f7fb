/**
 * The path choices stay where they were computed: the page gets a result's summary (its counts,
 * the options shown with no filter) and asks for the matches of what the user types in the
 * picker's filter. 80,000 choices are 9.7 MB even as column strings (choices.ts); their structured
 * clone alone held the page's main thread for ~50 ms of the ~100 ms the result took.
 */
import {
  choiceLists,
  showChoices,
  type ChoicesQuery,
  type ChoicesSummary,
  type ShownChoices,
} from './choices.ts';
import type { LabView, WorkerView } from './view.ts';

export interface ChoiceServer {
  /** The view the page gets: the choices kept here, their summary in their place. */
  forPage(v: WorkerView): LabView;
  /** The options of a kept result matching a query; null when that result is no longer kept. */
  answer(q: ChoicesQuery): ShownChoices | null;
}

/**
 * Keeps the choices of the last `keep` results sent (a query in flight may name the one before
 * the newest; older ones nobody shows any more).
 */
export function createChoiceServer(keep = 2): ChoiceServer {
  let next = 1;
  const kept = new Map<number, ReturnType<typeof choiceLists>>();
  return {
    forPage(v) {
      if (!v.choices) return { ...v, choices: null };
      const key = next++;
      const lists = choiceLists(v.choices);
      kept.set(key, lists);
      for (const k of kept.keys()) if (kept.size > keep) kept.delete(k);
      const query = { key, filter: '', from: v.probe?.from ?? '', to: v.probe?.to ?? '' };
      const choices: ChoicesSummary = {
        key,
        senders: lists.senders.length,
        destinations: lists.destinations.length,
        unfiltered: showChoices(lists, query),
      };
      return { ...v, choices };
    },
    answer(q) {
      const lists = kept.get(q.key);
      return lists ? showChoices(lists, q) : null;
    },
  };
}

/** The server of this thread's own runs (the lab's in-thread fallback, tests, "Your host"). */
export const localChoices = createChoiceServer();
