/**
 * Boot: the smallest possible first chunk. It starts the simulation worker and asks for the first
 * answer, then loads the app (React, D3, i18n) while the worker boots and simulates.
 */
import { readFlags, firstInput } from './boot.ts';
import { SCENARIO_FILES } from './scenario/files.ts';
import { browserStorage } from './store/persist.ts';
import { createBrowserClient } from './worker/browser-client.ts';

const flags = readFlags(location.search, location.hash);
const client = createBrowserClient();
// An embed never reads the reader's saved work (see instance.ts).
const first = firstInput(SCENARIO_FILES, flags, flags.embed ? null : browserStorage());
if (first) client.prefetch(first);

performance.mark('hookpath:boot');
void import('./start.tsx').then((m) => m.start(flags, client));
