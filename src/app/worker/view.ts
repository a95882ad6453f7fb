/**
 * What the page gets of a simulation: runLab's result with each node's rules as the rules panel's
 * digest (made here, in the worker), and the path choices as columns of strings (choices.ts). A
 * 5,000-Service result was 10 MB of objects and text whose structured clone and parsing held the
 * page's main thread for 0.3-0.7 s; the page needs a few hundred rules and a flat list of names.
 */
import type { LabResult } from '../../cluster/types.ts';
import { digestRules, type TableView } from '../model/rules-view.ts';
import { packChoices, type PackedChoices } from './choices.ts';

export type LabView = Omit<LabResult, 'rules' | 'choices'> & {
  /** Per node, the tables of its iptables-save as the rules panel draws them. */
  readonly rules: Readonly<Record<string, readonly TableView[]>>;
  readonly choices: PackedChoices | null;
};

export function labView(r: LabResult): LabView {
  const matched = new Map<string, Set<number>>();
  for (const run of r.runs)
    for (const e of run.events) {
      if (e.type !== 'rule') continue;
      let set = matched.get(e.host);
      if (!set) matched.set(e.host, (set = new Set()));
      set.add(e.line);
    }
  const rules: Record<string, readonly TableView[]> = {};
  for (const [node, text] of Object.entries(r.rules))
    rules[node] = digestOf(text, matched.get(node) ?? new Set());
  return { ...r, rules, choices: r.choices && packChoices(r.choices) };
}

/**
 * Digests by rules text and matched lines: an edit that leaves a node's rules as they were (the
 * generator's cache gives back the same text) and the packet's path too gets the same digest,
 * ~0.15 s of a 5,000-Service node's re-simulation. The texts are the keys: a few nodes' worth.
 */
const digests = new Map<string, { readonly lines: string; readonly digest: TableView[] }>();
const DIGESTS_KEPT = 8;

function digestOf(text: string, matched: ReadonlySet<number>): TableView[] {
  const lines = [...matched].sort((a, b) => a - b).join(',');
  const hit = digests.get(text);
  if (hit && hit.lines === lines) return hit.digest;
  const digest = digestRules(text, matched);
  digests.delete(text);
  if (digests.size >= DIGESTS_KEPT) digests.delete(digests.keys().next().value as string);
  digests.set(text, { lines, digest });
  return digest;
}
