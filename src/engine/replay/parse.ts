/** Reads pasted trace text, whichever monitor printed it. */
import { looksLikeNft, parseNftTrace } from './nft.ts';
import { looksLikePwru, parsePwruTrace } from './pwru.ts';
import { looksLikeRetis, parseRetisTrace } from './retis.ts';
import type { ParsedTrace } from './types.ts';
import { looksLikeXtables, parseXtablesTrace } from './xtables.ts';

/** Longest text read (a few MB of a busy node's trace would still take well under a second). */
export const MAX_TRACE_CHARS = 4_000_000;

export function parseRealTrace(text: string): ParsedTrace {
  if (text.length > MAX_TRACE_CHARS)
    return {
      format: 'unknown',
      packets: [],
      errors: [
        {
          line: 1,
          column: 1,
          message: `the trace is ${text.length} characters long; paste at most ${MAX_TRACE_CHARS} (one packet's lines are enough)`,
        },
      ],
      unknown: 0,
    };
  const lines = text.split('\n');
  if (looksLikeRetis(lines)) return parseRetisTrace(lines);
  if (looksLikePwru(lines)) return parsePwruTrace(lines);
  if (looksLikeNft(lines)) return parseNftTrace(lines);
  if (looksLikeXtables(lines)) return parseXtablesTrace(lines);
  const blank = lines.every((l) => l.trim() === '');
  return {
    format: 'unknown',
    packets: [],
    errors: blank
      ? []
      : [
          {
            line: 1,
            column: 1,
            message:
              'no trace lines found: paste the output of `xtables-monitor --trace` (lines starting PACKET: / TRACE:), `nft monitor trace` (lines starting "trace id"), Retis (the JSON lines of `retis collect -o`) or pwru (lines starting with an skb address, 0xffff...)',
          },
        ],
    unknown: blank ? 0 : lines.length,
  };
}
