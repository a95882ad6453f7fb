/**
 * Messages between the "Your host" view and its worker (own-host.worker.ts): the pasted dumps and
 * the form go in, the host's report and the trace (as the lab's panels read it) come out.
 */
import type { OwnHostInput, OwnHostResult } from '../../cluster/own-host/types.ts';
import type { LabView } from './view.ts';

export type { OwnHostInput };

export type OwnHostView = Omit<OwnHostResult, 'lab'> & { readonly lab: LabView | null };

export type OwnRequest = {
  readonly type: 'own';
  readonly id: number;
  readonly input: OwnHostInput;
};

export type OwnResponse =
  | { readonly type: 'own'; readonly id: number; readonly result: OwnHostView; readonly ms: number }
  | { readonly type: 'error'; readonly id: number; readonly message: string };

export type RunOwnHost = (input: OwnHostInput) => OwnHostView;

/** The dump kinds, for the page's pickers (a list of names: no simulation code comes with it). */
export { DUMP_KINDS } from '../../cluster/own-host/types.ts';

/**
 * The English of the importers' messages, for the page's translations (src/app/i18n): data only,
 * no simulation code comes with it.
 */
export { OWN_HOST_ERRORS_EN } from '../../cluster/own-host/messages.ts';
