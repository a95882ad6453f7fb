/**
 * What the page gets of a simulation: runLab's result with each node's rules as the rules panel's
 * digest (made here, in the worker), and the path choices' summary (choice-server.ts). A
 * 5,000-Service result was 10 MB of objects and text whose structured clone and parsing held the
 * page's main thread for 0.3-0.7 s; the page needs a few hundred rules and the options it shows.
 */
import type { LabResult } from '../../cluster/types.ts';
import { digestRules, type TableView } from '../model/rules-view.ts';
import { packChoices, type ChoicesSummary, type PackedChoices } from './choices.ts';
import { localChoices } from './choice-server.ts';
import { digestNft, type NftView } from '../model/nft-view.ts';

/** The result as the worker keeps it (and its result cache stores it): every choice, packed. */
export type WorkerView = Omit<LabResult, 'rules' | 'choices' | 'nftables'> & {
  /** Per node, the tables of its iptables-save as the rules panel draws them. */
  readonly rules: Readonly<Record<string, readonly TableView[]>>;
  /** Per nftables-mode node, kube-proxy's `nft -f` text as the rules panel draws it. */
  readonly nftables: Readonly<Record<string, NftView>>;
  readonly choices: PackedChoices | null;
};

/** The result as the page gets it: the choices' summary, the choices kept where they were made. */
export type LabView = Omit<WorkerView, 'choices'> & { readonly choices: ChoicesSummary | null };

/** A result as the page gets it, from a run in this thread (its choices kept by localChoices). */
export function labView(r: LabResult): LabView {
  return localChoices.forPage(workerView(r));
}

export function workerView(r: LabResult): WorkerView {
  // An nft rule event's line is a line of the node's nft text, not of its iptables-save.
  const matched = new Map<string, Set<number>>();
  const nftMatched = new Map<string, Set<number>>();
  for (const run of r.runs)
    for (const e of run.events) {
      if (e.type !== 'rule') continue;
      const by = e.nft ? nftMatched : matched;
      let set = by.get(e.host);
      if (!set) by.set(e.host, (set = new Set()));
      set.add(e.line);
    }
  const rules: Record<string, readonly TableView[]> = {};
  for (const [node, text] of Object.entries(r.rules))
    rules[node] = digestOf(text, matched.get(node) ?? new Set());
  const nftables: Record<string, NftView> = {};
  for (const [node, text] of Object.entries(r.nftables ?? {}))
    nftables[node] = digestNft(text, nftMatched.get(node) ?? new Set());
  return { ...r, rules, nftables, choices: r.choices && packChoices(r.choices) };
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
