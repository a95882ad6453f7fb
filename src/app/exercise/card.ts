/**
 * What the lab needs from an exercise file before any check: the list card and the task panel's
 * text (title, task, goals, hints, solutions, take-away). Read without the schema (the tests check
 * the lab's own files; files from a URL are validated when they open).
 */
import { parse } from 'yaml';
import type { I18nText } from '../../cluster/types.ts';
import { TOPICS, type Difficulty, type ExerciseDef, type Topic } from '../../exercise/types.ts';

export interface ExerciseCard extends Pick<
  ExerciseDef,
  'title' | 'task' | 'takeaway' | 'topics' | 'difficulty' | 'minutes'
> {
  readonly id: string;
  /** Where it came from: the lab's own exercises/, or an instructor's link. */
  readonly source: 'builtin' | 'url';
  readonly text: string;
  readonly order: number;
  readonly scenario: string | null;
  readonly goals: readonly { readonly id: string; readonly text: I18nText }[];
  readonly hints: readonly I18nText[];
  readonly solutions: readonly {
    readonly title: I18nText;
    readonly manifests: string;
    readonly why: I18nText | null;
  }[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

function text(v: unknown, fallback = ''): I18nText {
  if (typeof v === 'string') return { en: v, zh: v };
  if (isObj(v)) {
    const en = typeof v.en === 'string' ? v.en : fallback;
    return { en, zh: typeof v.zh === 'string' ? v.zh : en };
  }
  return { en: fallback, zh: fallback };
}

/** Reads the card of an exercise file; a file that does not parse gets a card named by its id. */
export function readCard(id: string, source: ExerciseCard['source'], src: string): ExerciseCard {
  let doc: unknown = null;
  try {
    doc = parse(src, { maxAliasCount: 50 });
  } catch {
    doc = null;
  }
  const d: Obj = isObj(doc) ? doc : {};
  const start = isObj(d.start) ? d.start : {};
  const difficulty = ['beginner', 'intermediate', 'advanced'].includes(String(d.difficulty))
    ? (d.difficulty as Difficulty)
    : 'beginner';
  return {
    id,
    source,
    text: src,
    title: text(d.title, id),
    task: text(d.task),
    takeaway: text(d.takeaway),
    topics: (Array.isArray(d.topics) ? d.topics : []).filter((t): t is Topic =>
      (TOPICS as readonly unknown[]).includes(t),
    ),
    difficulty,
    minutes: typeof d.minutes === 'number' ? d.minutes : 10,
    order: typeof d.order === 'number' ? d.order : 1000,
    scenario: typeof start.scenario === 'string' ? start.scenario : null,
    goals: list(d.goals).map((g) => ({ id: String(g.id ?? ''), text: text(g.text) })),
    hints: (Array.isArray(d.hints) ? d.hints : []).map((h) => text(h)),
    solutions: list(d.solutions).map((s) => ({
      title: text(s.title),
      manifests: typeof s.manifests === 'string' ? s.manifests : '',
      why: s.why ? text(s.why) : null,
    })),
  };
}

/** Exercises grouped by their first topic, in the domain's order, each group by `order`. */
export function groupByTopic(
  cards: readonly ExerciseCard[],
): { topic: Topic; cards: ExerciseCard[] }[] {
  return TOPICS.map((topic) => ({
    topic,
    cards: cards
      .filter((c) => c.topics[0] === topic)
      .sort((a, b) => a.order - b.order || a.id.localeCompare(b.id)),
  })).filter((g) => g.cards.length > 0);
}

/** The list's reading order, flattened: what "next exercise" follows. */
export function inOrder(cards: readonly ExerciseCard[]): ExerciseCard[] {
  return groupByTopic(cards).flatMap((g) => g.cards);
}
