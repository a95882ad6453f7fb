/** Reads pasted trace text, whichever monitor printed it. */
import { looksLikeNft, parseNftTrace } from './nft.ts';
import { looksLikePwru, parsePwruTrace } from './pwru.ts';
import { looksLikeRetis, parseRetisTrace } from './retis.ts';
import type { ParsedTrace } from './types.ts';
import { looksLikeXtables, parseXtablesTrace } from './xtables.ts';
import { traceError } from '../replay-errors.ts';

/** Longest text read (a few MB of a busy node's trace would still take well under a second). */
export const MAX_TRACE_CHARS = 4_000_000;

export function parseRealTrace(text: string): ParsedTrace {
  if (text.length > MAX_TRACE_CHARS)
    return {
      format: 'unknown',
      packets: [],
      errors: [
        traceError(1, 1, { key: 'too-long', params: { chars: text.length, max: MAX_TRACE_CHARS } }),
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
    errors: blank ? [] : [traceError(1, 1, { key: 'no-trace' })],
    unknown: blank ? 0 : lines.length,
  };
}
