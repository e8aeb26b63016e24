// One shape for every command-line tool here (npm start, extender, simulate,
// bench, bench:trace): the option table node:util parseArgs reads is the one
// --help prints, so the help cannot leave an option out or describe one that
// no longer exists.
import { pathToFileURL } from 'node:url';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { errorMessage } from '../lambdas/common/error-message';

export interface CliOption {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  readonly default?: string | boolean;
  /** The value's name in the help (`--port <PORT>`); string options only. */
  readonly value?: string;
  /** What it does; a `\n` starts another line in the help. */
  readonly description: string;
}

export type CliOptions = Readonly<Record<string, CliOption>>;

export interface CliSpec<O extends CliOptions> {
  /** How it is run, e.g. `npm run extender -- [options]`. */
  readonly usage: string;
  /** What it does and prints: a few lines. */
  readonly summary: string;
  readonly options: O;
  /** Whole command lines, each with an optional `# comment`. */
  readonly examples: readonly string[];
}

export const HELP_OPTION = { type: 'boolean', short: 'h', description: 'show this help and exit' } as const satisfies CliOption;

type WithHelp<O extends CliOptions> = O & { readonly help: typeof HELP_OPTION };

/** A command's spec, with -h/--help added. */
export function defineCli<const O extends CliOptions>(spec: CliSpec<O>): CliSpec<WithHelp<O>> {
  return { ...spec, options: { ...spec.options, help: HELP_OPTION } };
}

type ValueOf<T extends CliOption> = T['type'] extends 'boolean' ? boolean : string;

/** Parsed values: an option with a default is always there. */
export type CliValues<O extends CliOptions> = {
  -readonly [K in keyof O]: O[K] extends { readonly default: string | boolean } ? ValueOf<O[K]> : ValueOf<O[K]> | undefined;
};

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Parses argv strictly (no positionals); an unknown or malformed option is a UsageError. */
export function parseCommandLine<O extends CliOptions>(spec: CliSpec<O>, argv: readonly string[]): CliValues<O> {
  try {
    const { values } = parseArgs({ args: [...argv], options: spec.options as ParseArgsOptionsConfig, strict: true, allowPositionals: false });
    return values as CliValues<O>;
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
}

function optionLabel(name: string, option: CliOption): string {
  const long = `--${name}${option.type === 'string' ? ` <${option.value ?? 'value'}>` : ''}`;
  return option.short ? `-${option.short}, ${long}` : `    ${long}`;
}

export function helpText<O extends CliOptions>(spec: CliSpec<O>): string {
  const rows = Object.entries(spec.options).map(([name, option]) => {
    const defaulted = option.default !== undefined && option.type === 'string' ? ` (default ${option.default})` : '';
    return { label: optionLabel(name, option), lines: `${option.description}${defaulted}`.split('\n') };
  });
  const width = Math.max(...rows.map((r) => r.label.length)) + 2;
  const options = rows.flatMap(({ label, lines }) => lines.map((line, i) => `  ${(i === 0 ? label : '').padEnd(width)}${line}`));
  return [`Usage: ${spec.usage}`, '', spec.summary, '', 'Options:', ...options, '', 'Examples:', ...spec.examples.map((e) => `  ${e}`)].join('\n');
}

/** What a usage error prints (to stderr): the message, the usage line and where the details are. */
export function usageErrorText<O extends CliOptions>(spec: CliSpec<O>, message: string): string {
  return `error: ${message}\nUsage: ${spec.usage}\n(--help explains every option)`;
}

export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly exit: (code: number) => never;
}

const PROCESS_IO: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  exit: (code) => process.exit(code),
};

/**
 * Parses argv and hands the values to `read` (which may throw UsageError for
 * its own checks). --help prints the help to stdout and exits 0; a usage
 * error prints to stderr and exits 2. Otherwise returns what `read` returns.
 */
export function readCommandLine<O extends CliOptions & { readonly help: typeof HELP_OPTION }, T>(
  spec: CliSpec<O>,
  argv: readonly string[],
  read: (values: CliValues<O>) => T,
  io: CliIo = PROCESS_IO,
): T {
  try {
    const values = parseCommandLine(spec, argv);
    if (values.help === true) {
      io.stdout(`${helpText(spec)}\n`);
      return io.exit(0);
    }
    return read(values);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`${usageErrorText(spec, error.message)}\n`);
    return io.exit(2);
  }
}

/** True when the module at `moduleUrl` (its import.meta.url) is the script node was started with, not an import (tests read its spec). */
export function isEntryPoint(moduleUrl: string): boolean {
  const script = process.argv[1];
  return script !== undefined && moduleUrl === pathToFileURL(script).href;
}
