/**
 * The probe matrix of the lab's variant (slot a) and, when comparing, of the compared input
 * (slot b), computed in the matrix worker while the Matrix view is open. Cells arrive a few at a
 * time; an edit starts the matrix again (after a pause in typing) and stops the older one.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { Diagnostic } from '../../engine/index.ts';
import type { LabState, LabStore } from '../store/lab-store.ts';
import type { MatrixClient } from '../worker/matrix-client.ts';
import type {
  MatrixCell,
  MatrixInput,
  MatrixLayout,
  MatrixResponse,
  MatrixSlot,
} from '../worker/matrix-protocol.ts';
import { compareInput } from '../compare/spec.ts';

export interface MatrixSide {
  readonly status: 'running' | 'done' | 'invalid' | 'error';
  readonly layout: MatrixLayout | null;
  /** By pair index; null until computed. */
  readonly cells: readonly (MatrixCell | null)[];
  readonly done: number;
  readonly diagnostics: readonly Diagnostic[];
  readonly message: string | null;
  readonly ms: number | null;
}

export interface MatrixState {
  readonly a: MatrixSide | null;
  readonly b: MatrixSide | null;
}

export interface MatrixController {
  readonly state: StoreApi<MatrixState>;
  dispose(): void;
}

/** The lab's own variant, with its edit. */
export function matrixInputOf(s: LabState): MatrixInput | null {
  if (!s.scenario) return null;
  return {
    scenario: s.scenario.text,
    validate: false,
    ...(s.doc.manifests !== s.original ? { manifests: s.doc.manifests } : {}),
    ...(s.doc.variant ? { variant: s.doc.variant } : {}),
    // The lab's kube-proxy mode: the matrix of what the diagram shows.
    ...(s.doc.mode ? { mode: s.doc.mode } : {}),
  };
}

const EMPTY: MatrixSide = {
  status: 'running',
  layout: null,
  cells: [],
  done: 0,
  diagnostics: [],
  message: null,
  ms: null,
};

// eslint-disable-next-line max-lines-per-function -- a factory: the methods it returns share this closure's state
export function createMatrixController(
  lab: LabStore,
  client: () => MatrixClient,
  debounceMs = 300,
): MatrixController {
  const state = createStore<MatrixState>()(() => ({ a: null, b: null }));
  const keys: Record<MatrixSlot, string | null> = { a: null, b: null };
  const stops: Record<MatrixSlot, (() => void) | null> = { a: null, b: null };
  let timer: ReturnType<typeof setTimeout> | null = null;

  const update = (slot: MatrixSlot, f: (s: MatrixSide) => MatrixSide) => {
    const cur = state.getState()[slot];
    if (cur) state.setState({ [slot]: f(cur) } as Partial<MatrixState>);
  };

  const listen = (slot: MatrixSlot) => (r: MatrixResponse) => {
    switch (r.type) {
      case 'layout':
        update(slot, (s) => ({ ...s, layout: r.layout, cells: r.layout.pairs.map(() => null) }));
        break;
      case 'cells':
        update(slot, (s) => {
          const cells = s.cells.slice();
          r.cells.forEach((c, i) => (cells[r.from + i] = c));
          return { ...s, cells, done: s.done + r.cells.length };
        });
        break;
      case 'done':
        update(slot, (s) => ({ ...s, status: 'done', ms: r.ms }));
        break;
      case 'invalid':
        update(slot, (s) => ({ ...s, status: 'invalid', diagnostics: r.diagnostics }));
        break;
      case 'error':
        update(slot, (s) => ({ ...s, status: 'error', message: r.message }));
        break;
      case 'cancelled':
        break;
    }
  };

  const start = (slot: MatrixSlot, input: MatrixInput | null) => {
    const k = input ? JSON.stringify(input) : null;
    if (k === keys[slot]) return;
    keys[slot] = k;
    stops[slot]?.();
    stops[slot] = null;
    if (!input) {
      state.setState({ [slot]: null } as Partial<MatrixState>);
      return;
    }
    // The last table stays on screen (dimmed) until the new one has its layout.
    const prev = state.getState()[slot];
    state.setState({
      [slot]: prev ? { ...prev, status: 'running' } : EMPTY,
    } as Partial<MatrixState>);
    stops[slot] = client().compute(slot, input, (r) => {
      if (r.type === 'layout') state.setState({ [slot]: { ...EMPTY } } as Partial<MatrixState>);
      listen(slot)(r);
    });
  };

  const refresh = () => {
    const s = lab.getState();
    if (s.view !== 'matrix') return;
    start('a', matrixInputOf(s));
    start('b', s.compare ? compareInput(s, null) : null);
  };

  const unsub = lab.subscribe((s, prev) => {
    if (s.view !== 'matrix') return;
    const typing = s.doc.manifests !== prev.doc.manifests && s.view === prev.view;
    if (timer) clearTimeout(timer);
    timer = null;
    if (typing) timer = setTimeout(refresh, debounceMs);
    else if (
      s.view !== prev.view ||
      s.scenario !== prev.scenario ||
      s.doc.variant !== prev.doc.variant ||
      s.doc.mode !== prev.doc.mode ||
      s.compare !== prev.compare ||
      s.original !== prev.original
    )
      refresh();
  });
  refresh();

  return {
    state,
    dispose() {
      unsub();
      if (timer) clearTimeout(timer);
      stops.a?.();
      stops.b?.();
    },
  };
}
