/**
 * hookpath as a process: arguments in, text on stdout and stderr, an exit code. See cli.ts for
 * the commands; `hookpath help` lists every option.
 */
import { exitWhenWritten } from './exit.ts';
import { keepNurserySmall } from './heap.ts';
import { HELP, isHelp } from './help.ts';

keepNurserySmall();

// A closed pipe (`hookpath run x.yaml | head -1`) ends the output quietly, with the status of a
// process killed by SIGPIPE (128 + 13), as coreutils do; Node would throw EPIPE instead.
const EXIT_PIPE = 141;
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(EXIT_PIPE);
    process.exitCode = 74; // EX_IOERR: the output cannot be written
  });
}

const argv = process.argv.slice(2);
if (isHelp(argv[0])) {
  // Only the text: the engine, the schemas and the YAML parser stay unloaded (~0.1 s of start-up).
  process.stdout.write(HELP);
} else {
  const { runCli } = await import('./cli.ts');
  process.exitCode = runCli(argv, {
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
    // https://no-color.org: any value of NO_COLOR turns colour off.
    colour: process.stdout.isTTY === true && !process.env.NO_COLOR,
  });
  exitWhenWritten();
}
