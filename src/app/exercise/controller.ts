/**
 * The exercise side effects, outside React: opens an exercise into the lab (its own scenario, the
 * learner's saved answer), checks the goals in the worker on every edit (debounced), keeps the
 * address bar and the stored progress in step, and carries exercises in links.
 */
import type { LabStore } from '../store/lab-store.ts';
import { loadEdit, readEdit, type KeyValue } from '../store/persist.ts';
import { encodeShare, readShare, SHARE_PARAM, type SharedDoc } from '../store/share.ts';
import type { LabClient } from '../worker/client.ts';
import { inOrder, readCard, type ExerciseCard } from './card.ts';
import { loadExerciseCards } from './files.ts';
import {
  exportProgress,
  loadProgress,
  parseProgress,
  saveProgress,
  type Progress,
} from './progress.ts';
import { createExerciseStore, progressOf, type ExerciseStore } from './store.ts';
import {
  decodeExercise,
  encodeExercise,
  EXERCISE_PARAM,
  exerciseParam,
  urlExerciseId,
} from './url.ts';

export interface ExerciseControllerOptions {
  readonly storage?: KeyValue | null;
  /** The lab's scenario files (an exercise starts from one of them). */
  readonly scenarios: readonly { readonly id: string; readonly text: string }[];
  readonly debounceMs?: number;
  /** The page's address (tests pass their own); the bar is kept in step with the open exercise. */
  readonly location?: { readonly href: string } | null;
  readonly history?: { replaceState(data: unknown, unused: string, url: string): void } | null;
  /** Where `hashchange` fires: a link pasted into this tab opens its exercise too. */
  readonly events?: Pick<EventTarget, 'addEventListener' | 'removeEventListener'> | null;
}

export interface ExerciseController {
  readonly store: ExerciseStore;
  /** Opens the list, loading the lab's exercises the first time. */
  showList(): void;
  hideList(): void;
  /** Opens an exercise; `shared`: a learner's state a link carries beside it. */
  open(id: string, shared?: SharedDoc | null): Promise<void>;
  /** Opens an exercise a link carries (`#exercise=…`). */
  openCarried(param: string, shared?: SharedDoc | null): Promise<void>;
  /** Opens what the address asks for; true when it asks for an exercise. */
  startFromAddress(): boolean;
  leave(): void;
  /** Puts a reference answer in the editor (after "show solution"). */
  useSolution(i: number): void;
  /** The exercise after the open one in the list's order, not yet done if there is one. */
  next(): ExerciseCard | null;
  exportProgress(): string;
  importProgress(text: string): { count: number } | { error: string };
  /**
   * A link to the open exercise with the learner's answer, path and step (`?exercise=ID#lab=…`,
   * or `#exercise=…&lab=…` for an exercise that came in a link); null when none is open.
   */
  shareLink(): string | null;
  /** Validates an exercise file and makes a link that carries it. */
  makeLink(text: string): Promise<{ url: string } | { error: string; lines: readonly string[] }>;
  dispose(): void;
}

// eslint-disable-next-line max-lines-per-function -- a factory: the methods it returns share this closure's state
export function createExerciseController(
  lab: LabStore,
  client: LabClient,
  opts: ExerciseControllerOptions,
): ExerciseController {
  const kv = opts.storage ?? null;
  const store = createExerciseStore({ progress: loadProgress(kv) });
  const scenarios = Object.fromEntries(opts.scenarios.map((s) => [s.id, s.text]));
  const debounceMs = opts.debounceMs ?? 300;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let disposed = false;
  let openSeq = 0;

  const address = (mutate: (u: URL) => void) => {
    const loc = opts.location;
    if (!loc || !opts.history) return;
    const u = new URL(loc.href);
    mutate(u);
    if (u.href !== loc.href) opts.history.replaceState(null, '', u.href);
  };

  const catalog = async (): Promise<readonly ExerciseCard[]> => {
    const have = store.getState().catalog;
    if (have) return have;
    const cards = await loadExerciseCards();
    store.actions.setCatalog(cards);
    return cards;
  };

  const checkNow = async () => {
    if (timer) clearTimeout(timer);
    timer = null;
    const a = store.getState().active;
    const l = lab.getState();
    if (!a || l.scenario?.id !== a.opened.scenario.id) return;
    store.actions.setChecking(true);
    const o = await client.check({
      exercise: a.card.text,
      ...(a.card.scenario && scenarios[a.card.scenario] !== undefined
        ? { scenarios: { [a.card.scenario]: scenarios[a.card.scenario] as string } }
        : {}),
      answer: l.doc.manifests,
    });
    if (disposed || store.getState().active !== a) return;
    if (o.kind === 'report') store.actions.receive(o.report);
    else if (o.kind === 'error') store.actions.failCheck(o.message);
  };

  /** The learner's state a link carries (`lab=` beside the exercise), read once at start. */
  const carriedDoc = (hash: string): SharedDoc | null => {
    const param = new URLSearchParams(hash.replace(/^#/, '')).get(SHARE_PARAM);
    const r = param ? readShare(param) : null;
    return r?.ok ? r.doc : null;
  };

  const activate = async (card: ExerciseCard, seq: number, shared: SharedDoc | null = null) => {
    const { openExercise } = await import('./open.ts');
    if (seq !== openSeq) return;
    const r = openExercise(card.id, card.text, scenarios, { validate: card.source === 'url' });
    if ('diagnostics' in r) {
      store.actions.failOpen(
        card.source === 'url'
          ? 'The exercise in this link is not valid.'
          : `Exercise '${card.id}' is not valid.`,
        r.diagnostics,
      );
      return;
    }
    const id = r.opened.scenario.id;
    store.actions.activate({ card, opened: r.opened });
    if (shared?.scenarioId === id) {
      // A shared answer is shown; the learner's own stays saved and is offered beside it.
      const shown = shared.manifests ?? r.opened.scenario.manifests;
      const mine = readEdit(kv, id, null)?.text;
      lab.actions.loadScenario(
        r.opened.scenario,
        { ...shared, variant: null },
        {
          conflict: mine !== undefined && mine !== shown ? { kind: 'link', mine } : null,
          ...(shared.everyRule ? { everyRule: true } : {}),
        },
      );
    } else {
      const saved = loadEdit(kv, id, null);
      lab.actions.loadScenario(r.opened.scenario, saved !== null ? { manifests: saved } : {});
    }
    address((u) => {
      u.searchParams.delete('scenario');
      if (card.source === 'builtin') {
        u.searchParams.set(EXERCISE_PARAM, card.id);
        u.hash = '';
      } else u.searchParams.delete(EXERCISE_PARAM);
    });
    await checkNow();
  };

  const unsubLab = lab.subscribe((s, prev) => {
    const a = store.getState().active;
    if (!a) return;
    if (s.scenario !== prev.scenario && s.scenario?.id !== a.opened.scenario.id) {
      // The learner picked a scenario: the exercise is left, not lost (the answer is saved).
      controller.leave();
      return;
    }
    if (s.doc.manifests !== prev.doc.manifests) {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => void checkNow(), debounceMs);
    }
  });
  const unsubProgress = store.subscribe((s, prev) => {
    if (s.progress !== prev.progress) saveProgress(kv, s.progress);
  });
  const onHash = () => {
    const carried = exerciseParam(new URL(opts.location?.href ?? 'http://localhost/').hash);
    if (carried) void controller.openCarried(carried);
  };
  opts.events?.addEventListener('hashchange', onHash);

  const controller: ExerciseController = {
    store,
    showList() {
      store.actions.setListOpen(true);
      void catalog();
    },
    hideList() {
      store.actions.setListOpen(false);
    },
    async open(id, shared = null) {
      const seq = ++openSeq;
      store.actions.setOpening(id);
      const card = (await catalog()).find((c) => c.id === id);
      if (seq !== openSeq) return;
      if (!card) {
        store.actions.failOpen(`There is no exercise '${id}'.`);
        return;
      }
      await activate(card, seq, shared);
    },
    async openCarried(param, shared = null) {
      const seq = ++openSeq;
      const d = decodeExercise(param);
      if ('error' in d) {
        store.actions.failOpen(`This link carries no exercise the lab can read: ${d.error}.`);
        return;
      }
      const card = readCard(urlExerciseId(d.text), 'url', d.text);
      store.actions.setOpening(card.id);
      await activate(card, seq, shared);
    },
    startFromAddress() {
      const loc = opts.location;
      if (!loc) return false;
      const u = new URL(loc.href);
      const carried = exerciseParam(u.hash);
      const shared = carriedDoc(u.hash);
      if (carried) {
        void controller.openCarried(carried, shared);
        return true;
      }
      const id = u.searchParams.get(EXERCISE_PARAM);
      if (id) {
        void controller.open(id, shared);
        return true;
      }
      return false;
    },
    leave() {
      if (timer) clearTimeout(timer);
      timer = null;
      store.actions.leave();
      address((u) => {
        u.searchParams.delete(EXERCISE_PARAM);
        if (exerciseParam(u.hash)) u.hash = '';
      });
    },
    useSolution(i) {
      const a = store.getState().active;
      const s = a?.card.solutions[i];
      if (!a || !s || !progressOf(store.getState(), a.card.id).solutionShown) return;
      lab.actions.setManifests(s.manifests);
    },
    next() {
      const s = store.getState();
      const cards = inOrder(s.catalog ?? []);
      const at = cards.findIndex((c) => c.id === s.active?.card.id);
      const after = [...cards.slice(at + 1), ...cards.slice(0, Math.max(0, at))];
      return after.find((c) => !progressOf(s, c.id).done) ?? after[0] ?? null;
    },
    exportProgress() {
      return exportProgress(store.getState().progress);
    },
    importProgress(text) {
      const r = parseProgress(text);
      if ('error' in r) return r;
      store.actions.importProgress(r.progress as Progress);
      return { count: Object.keys(r.progress).length };
    },
    shareLink() {
      const a = store.getState().active;
      const l = lab.getState();
      if (!a || l.scenario?.id !== a.opened.scenario.id) return null;
      const u = new URL(opts.location?.href ?? 'http://localhost/');
      u.searchParams.delete('scenario');
      u.searchParams.delete(EXERCISE_PARAM);
      const h = new URLSearchParams();
      if (a.card.source === 'builtin') u.searchParams.set(EXERCISE_PARAM, a.card.id);
      else {
        const enc = encodeExercise(a.card.text);
        if ('error' in enc) return null;
        h.set(EXERCISE_PARAM, enc.param);
      }
      h.set(SHARE_PARAM, encodeShare(l.doc, l.original, { everyRule: !l.hideMisses }));
      u.hash = h.toString();
      return u.href;
    },
    async makeLink(text) {
      const { openExercise } = await import('./open.ts');
      const r = openExercise(urlExerciseId(text), text, scenarios, { validate: true });
      if ('diagnostics' in r)
        return {
          error: 'The exercise is not valid',
          lines: r.diagnostics.map(
            (d) =>
              `${d.line > 0 ? `${d.line}:${d.column}: ` : ''}${d.field ? `${d.field}: ` : ''}${d.message}`,
          ),
        };
      const enc = encodeExercise(text);
      if ('error' in enc) return { error: enc.error, lines: [] };
      const u = new URL(opts.location?.href ?? 'http://localhost/');
      u.search = '';
      u.hash = `${EXERCISE_PARAM}=${enc.param}`;
      return { url: u.href };
    },
    dispose() {
      disposed = true;
      if (timer) clearTimeout(timer);
      unsubLab();
      unsubProgress();
      opts.events?.removeEventListener('hashchange', onHash);
    },
  };
  return controller;
}
