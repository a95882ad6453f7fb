/**
 * hookpath as a process: arguments in, text on stdout and stderr, an exit code. See cli.ts for
 * the commands; `hookpath help` lists every option.
 */
import { runCli } from './cli.ts';

// A closed pipe (`hookpath run x.yaml | head -1`) ends the output quietly, with the status of a
// process killed by SIGPIPE (128 + 13), as coreutils do; Node would throw EPIPE instead.
const EXIT_PIPE = 141;
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(EXIT_PIPE);
    process.exitCode = 74; // EX_IOERR: the output cannot be written
  });
}

process.exitCode = runCli(process.argv.slice(2), {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  // https://no-color.org: any value of NO_COLOR turns colour off.
  colour: process.stdout.isTTY === true && !process.env.NO_COLOR,
});
