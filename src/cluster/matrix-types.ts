/**
 * The probe matrix's data (matrix.ts computes it): plain, structured-clone safe, as the lab's
 * matrix worker sends it to the page and `hookpath matrix --json` prints it.
 */
import type { OutcomeClass } from './expect.ts';
import type { MatrixSender } from './matrix-senders.ts';
import type { DestinationChoice } from './types.ts';
import type { Diagnostic } from '../engine/index.ts';
import type { KubeProxyMode } from './scenario.ts';

export type { MatrixSender };

/** What a matrix is computed from: a scenario variant, as the lab runs it. */
export interface MatrixInput {
  readonly scenario: string;
  readonly manifests?: string;
  readonly variant?: string;
  /** kube-proxy mode, one of the scenario's `kubeProxyModes` (the lab's mode switch). */
  readonly mode?: KubeProxyMode;
  readonly validate?: boolean;
  /** At most this many cells (rows x columns); the rest is named in `limited`. */
  readonly maxCells?: number;
}

/**
 * Bounds of one matrix: a cell costs one enumeration (up to the engine's own limits), so a big
 * cluster's thousands of pods and Services are cut to a table a reader can take in.
 */
export const MATRIX_LIMITS = { cells: 400, senders: 24, columns: 40 };

export interface MatrixColumn {
  /** A destination of the path vocabulary; for `localhost-nodeport` the node is the sender's own. */
  readonly id: string;
  readonly kind: DestinationChoice['kind'];
  readonly label: string;
  /** `192.168.10.11:30080`, `127.0.0.1:30080`. */
  readonly address: string;
  readonly port: number;
  readonly proto: 'tcp' | 'udp' | 'sctp' | 'icmp';
  /** Only a node can send to it: 127.0.0.1 on the sender itself. */
  readonly ownNode: boolean;
}

/** The kinds a cell's outcome can have; `split`: random branches end differently. */
export type MatrixOutcome = OutcomeClass | 'split' | 'error';

export interface MatrixBranch {
  readonly share: number;
  readonly outcome: OutcomeClass;
  /** `pod/web-6c8f-1`, `node/cp-1/sshd`; null when nobody answered. */
  readonly responder: string | null;
  /** The source address the responder saw. */
  readonly srcSeen: string | null;
  /** Whose address that is: `node/core-1`, `client/external`, `pod/pod-a`. */
  readonly srcSeenAs: string | null;
  /** What happened, in words (`timeout (dropped by filter KUBE-EXTERNAL-SERVICES)`). */
  readonly detail: string;
}

export interface MatrixCell {
  readonly row: number;
  readonly col: number;
  /** The path of this cell (`client/external` → `nodeport/web@core-1`): what the lab traces. */
  readonly from: string;
  readonly to: string;
  readonly proto: 'tcp' | 'udp' | 'sctp' | 'icmp';
  /** Resolved destination, `192.168.10.11:30080`. */
  readonly address: string | null;
  readonly outcome: MatrixOutcome;
  /** The answering process or pod; several joined with `, ` when branches differ. */
  readonly responder: string | null;
  /** The same, pods by workload: `pod/web (2 pods)`, `node/core-1/kubelet`. */
  readonly answeredBy: string | null;
  readonly srcSeen: string | null;
  readonly srcSeenAs: string | null;
  /** Every distinct end of the probe with its probability (shares sum to `covered`). */
  readonly branches: readonly MatrixBranch[];
  /** The scenario's expectation for this pair, in words; null when it states none. */
  readonly expected: string | null;
  /** Null without an expectation; false also when the enumeration was partial. */
  readonly matches: boolean | null;
  /** What differs from the expectation, one line per field. */
  readonly diff: readonly string[];
  /** The scenario's probe names this cell answers. */
  readonly probes: readonly string[];
  /** The engine stopped at a limit: the branches cover `covered` of the probability. */
  readonly partial: { readonly covered: number; readonly notComputed: number } | null;
  /** The cell could not be run (message). */
  readonly error?: string;
}

/** Rows and columns the limits left out, said beside the table. */
export interface MatrixLimited {
  readonly senders: { readonly shown: number; readonly total: number };
  readonly columns: { readonly shown: number; readonly total: number };
}

/** One cell to compute: row and column indices, and the path it traces. */
export interface MatrixPair {
  readonly row: number;
  readonly col: number;
  readonly from: string;
  readonly to: string;
  readonly proto: 'tcp' | 'udp' | 'sctp' | 'icmp';
}

export interface MatrixLayout {
  readonly senders: readonly MatrixSender[];
  readonly columns: readonly MatrixColumn[];
  /** Applicable pairs, row by row (a 127.0.0.1 column has cells for nodes only). */
  readonly pairs: readonly MatrixPair[];
  readonly limited: MatrixLimited | null;
  /** Probes of the scenario that fit no cell (their sender or destination does not resolve). */
  readonly unplaced: readonly { readonly probe: string; readonly error: string }[];
}

export type MatrixOpen =
  | { readonly ok: false; readonly diagnostics: readonly Diagnostic[] }
  | {
      readonly ok: true;
      readonly diagnostics: readonly Diagnostic[];
      readonly layout: MatrixLayout;
      /** Computes the cell of `layout.pairs[i]`. */
      readonly cell: (i: number) => MatrixCell;
    };

export interface MatrixResult {
  readonly ok: boolean;
  readonly diagnostics: readonly Diagnostic[];
  readonly layout: MatrixLayout | null;
  readonly cells: readonly MatrixCell[];
}
