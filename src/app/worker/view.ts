/**
 * What the page gets of a simulation: runLab's result with each node's rules as the rules panel's
 * digest (made here, in the worker), and on the wire the path choices as columns of strings. A
 * 5,000-Service result was 10 MB of objects and text whose structured clone and parsing held the
 * page's main thread for 0.3-0.7 s; the page needs a few hundred rules and a flat list of names.
 */
import type {
  DestinationChoice,
  LabResult,
  PathChoices,
  SenderChoice,
} from '../../cluster/types.ts';
import { digestRules, type TableView } from '../model/rules-view.ts';
import type { WorkerResponse } from './protocol.ts';

export type LabView = Omit<LabResult, 'rules'> & {
  /** Per node, the tables of its iptables-save as the rules panel draws them. */
  readonly rules: Readonly<Record<string, readonly TableView[]>>;
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
    rules[node] = digestRules(text, matched.get(node) ?? new Set());
  return { ...r, rules };
}

/** Choices as columns: tens of thousands of small objects clone ~30 times slower than strings. */
interface PackedChoices {
  readonly packed: true;
  readonly senders: Record<keyof SenderChoice, unknown[]>;
  readonly destinations: Record<keyof DestinationChoice, unknown[]>;
}

function pack<T extends object>(list: readonly T[], keys: readonly (keyof T)[]) {
  const out = {} as Record<keyof T, unknown[]>;
  for (const k of keys) out[k] = list.map((x) => x[k]);
  return out;
}

function unpack<T>(cols: Record<string, unknown[]>): T[] {
  const keys = Object.keys(cols);
  const n = cols[keys[0] as string]?.length ?? 0;
  const out: T[] = new Array<T>(n);
  for (let i = 0; i < n; i++) {
    const o: Record<string, unknown> = {};
    for (const k of keys) o[k] = (cols[k] as unknown[])[i];
    out[i] = o as T;
  }
  return out;
}

const SENDER_KEYS: readonly (keyof SenderChoice)[] = ['id', 'kind', 'label', 'host'];
const DEST_KEYS: readonly (keyof DestinationChoice)[] = [
  'id',
  'kind',
  'label',
  'address',
  'port',
  'proto',
];

/** Choices lists shorter than this go as they are. */
const PACK_FROM = 500;

/** A response as posted by the worker. */
export function toWire(msg: WorkerResponse): unknown {
  if (msg.type !== 'result' || !msg.result.choices) return msg;
  const c = msg.result.choices;
  if (c.senders.length + c.destinations.length < PACK_FROM) return msg;
  const choices: PackedChoices = {
    packed: true,
    senders: pack(c.senders, SENDER_KEYS),
    destinations: pack(c.destinations, DEST_KEYS),
  };
  return { ...msg, result: { ...msg.result, choices } };
}

/** A response as the page reads it (packed or not). */
export function fromWire(data: unknown): WorkerResponse {
  const msg = data as WorkerResponse;
  if (msg.type !== 'result') return msg;
  const c = msg.result.choices as PathChoices | PackedChoices | null;
  if (!c || !('packed' in c)) return msg;
  const choices: PathChoices = {
    senders: unpack<SenderChoice>(c.senders),
    destinations: unpack<DestinationChoice>(c.destinations),
  };
  return { ...msg, result: { ...msg.result, choices } };
}
