/**
 * A "Your host" result for the app's tests: cp-1 of the VIP:22 homelab as the user would paste
 * it (the captured dumps of src/cluster/own-host/fixtures), SSH to the LoadBalancer IP from the
 * wire. Tests only (Node: reads the fixtures from disk).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runOwnHost } from '../../cluster/own-host/run.ts';
import type { LabResult } from '../../cluster/types.ts';
import { EMPTY_FORM } from '../own-host/saved.ts';

const FIXTURES = join(import.meta.dirname, '../../cluster/own-host/fixtures');

export function pastedVip22(dumps: readonly string[]): LabResult {
  const r = runOwnHost({
    dumps: dumps.map((name) => ({
      id: name,
      name,
      kind: 'auto' as const,
      text: readFileSync(join(FIXTURES, name), 'utf8'),
    })),
    extras: { ...EMPTY_FORM.extras, listeners: '' },
    // The form's default packet (from the wire, SSH), to the LoadBalancer IP.
    packet: { ...EMPTY_FORM.packet, dst: '192.168.50.100' },
  });
  if (!r.lab) throw new Error(`no lab result: ${JSON.stringify(r.problems)}`);
  return r.lab;
}
