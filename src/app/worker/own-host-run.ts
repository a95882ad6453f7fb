/** runOwnHost as the page gets it: the trace's rules digested for the rules panel (view.ts). */
import { runOwnHost } from '../../cluster/own-host/run.ts';
import type { OwnHostInput, OwnHostView } from './own-host-protocol.ts';
import { labView } from './view.ts';

export function runOwnHostView(input: OwnHostInput): OwnHostView {
  const r = runOwnHost(input);
  return { ...r, lab: r.lab && labView(r.lab) };
}
