/**
 * Command-line options of the performance benchmarks: `node:util` parseArgs plus the behaviour every
 * `bench:*` script shares, so each one answers `--help` the same way (usage on stdout, exit 0) and a
 * misspelt flag stops the run before minutes of loading (message and usage on stderr, exit 2).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type OptionsConfig = NonNullable<ParseArgsConfig['options']>;

/** Exit status for bad usage, as the retrieval benchmark CLI uses. */
export const USAGE_EXIT_CODE = 2;

export function wantsHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/** The parsed options of `process.argv`; prints `usage` and exits on `--help` or an unknown flag. */
export function benchArgs<const O extends OptionsConfig>(usage: string, options: O) {
  const text = usage.endsWith('\n') ? usage : `${usage}\n`;
  if (wantsHelp(process.argv.slice(2))) {
    process.stdout.write(text);
    process.exit(0);
  }
  try {
    return parseArgs({ options }).values;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${text}`);
    process.exit(USAGE_EXIT_CODE);
  }
}
