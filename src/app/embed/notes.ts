/**
 * What the lab could not use of its address, said on the page until the reader dismisses it. One
 * list per lab (like its store): two embeds on one page keep their own notes.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ParamNote } from './params.ts';

export interface NotesState {
  readonly notes: readonly ParamNote[];
}

export type NotesStore = StoreApi<NotesState> & {
  add(n: ParamNote): void;
  dismiss(i: number): void;
};

export function createNotesStore(initial: readonly ParamNote[] = []): NotesStore {
  const store = createStore<NotesState>()(() => ({ notes: initial }));
  return Object.assign(store, {
    add(n: ParamNote) {
      store.setState((s) => ({ notes: [...s.notes, n] }));
    },
    dismiss(i: number) {
      store.setState((s) => ({ notes: s.notes.filter((_, j) => j !== i) }));
    },
  });
}
