/**
 * hookpath: the lab's command line, as a function of its arguments and two output streams, so
 * tests run it in-process. Exit codes: 0 done, 1 a probe differs from its expectation, 2 bad
 * input (with a message naming the place, never a stack trace), 70 a bug in hookpath.
 */
import { rulesCommand, runCommand, scenarioTraceCommand } from './scenario-commands.ts';
import { hostTraceCommand } from './trace-command.ts';
import { exerciseCommand } from './exercise-command.ts';
import { matrixCommand } from './matrix-command.ts';
import { UsageError, usageJson, usageText } from './input-error.ts';
import { HELP, isHelp } from './help.ts';

export { HELP } from './help.ts';

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** stdout is a terminal that takes colour (never in a pipe, never with NO_COLOR). */
  readonly colour?: boolean;
}

export const EXIT = { ok: 0, mismatch: 1, input: 2, bug: 70 } as const;

/** parseArgs reports unknown options and missing values as TypeErrors with ERR_PARSE_ARGS_* codes. */
function isArgsError(e: unknown): e is TypeError {
  return e instanceof TypeError && 'code' in e && String(e.code).startsWith('ERR_PARSE_ARGS');
}

function command(cmd: string | undefined, rest: string[], io: CliIo): number {
  switch (cmd) {
    case 'trace':
      return rest[0] && !rest[0].startsWith('-')
        ? scenarioTraceCommand(rest, io)
        : hostTraceCommand(rest, io);
    case 'run':
      return runCommand(rest, io);
    case 'rules':
      return rulesCommand(rest, io);
    case 'matrix':
      return matrixCommand(rest, io);
    case 'exercise':
      return exerciseCommand(rest, { write: io.out }, { write: io.err });
    default:
      if (isHelp(cmd)) {
        io.out(HELP);
        return EXIT.ok;
      }
      io.err(
        `hookpath: unknown command '${cmd}'; the commands are run, rules, trace, matrix, exercise, help\n`,
      );
      return EXIT.input;
  }
}

/**
 * The message and exit code for anything a command threw. Bad input is printed on stderr, and
 * with `json` also on stdout as `{ ok: false, diagnostics }` (a script reads the same output
 * whether the command worked or not).
 */
export function reportError(e: unknown, io: CliIo, json = false): number {
  if (isArgsError(e))
    return reportError(
      new UsageError(e.message.replace(/\n/g, ' '), { hint: 'hookpath help lists every option' }),
      io,
      json,
    );
  if (e instanceof UsageError) {
    io.err(usageText(e));
    if (json) io.out(usageJson(e));
    return EXIT.input;
  }
  // Anything else is a bug: one line and how to report it; the stack only on request.
  const err = e instanceof Error ? e : new Error(String(e));
  io.err(
    `hookpath: internal error: ${err.message}\n  This is a bug in hookpath, not in your input; please report it with the command line.${process.env.HOOKPATH_DEBUG ? `\n${err.stack ?? ''}` : ' (HOOKPATH_DEBUG=1 shows where it happened.)'}\n`,
  );
  return EXIT.bug;
}

export function runCli(argv: readonly string[], io: CliIo): number {
  const [cmd, ...rest] = argv;
  try {
    return command(cmd, rest, io);
  } catch (e) {
    return reportError(e, io, rest.includes('--json'));
  }
}
