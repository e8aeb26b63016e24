import { describe, expect, it } from 'vitest';
import { defineCli, helpText, parseCommandLine, readCommandLine, UsageError, type CliIo } from '../../../cli/command-line';

const SPEC = defineCli({
  usage: 'npm run tool -- [options]',
  summary: 'Does a thing.',
  options: {
    port: { type: 'string', value: 'port', default: '8888', description: 'where to listen' },
    name: { type: 'string', description: 'a name\nsecond line' },
    verbose: { type: 'boolean', short: 'v', description: 'say more' },
  },
  examples: ['npm run tool -- --port 1'],
});

class Exit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

function fakeIo(): CliIo & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    stdout: (text: string) => {
      io.out += text;
    },
    stderr: (text: string) => {
      io.err += text;
    },
    exit: (code: number): never => {
      throw new Exit(code);
    },
  };
  return io;
}

describe('command-line specs', () => {
  it('prints usage, summary, every option (with its value, default and short form) and the examples', () => {
    expect(helpText(SPEC)).toBe(
      [
        'Usage: npm run tool -- [options]',
        '',
        'Does a thing.',
        '',
        'Options:',
        '      --port <port>   where to listen (default 8888)',
        '      --name <value>  a name',
        '                      second line',
        '  -v, --verbose       say more',
        '  -h, --help          show this help and exit',
        '',
        'Examples:',
        '  npm run tool -- --port 1',
      ].join('\n'),
    );
  });

  it('parses with the same table: defaults filled, short forms accepted', () => {
    expect(parseCommandLine(SPEC, ['-v', '--name', 'x'])).toEqual({ port: '8888', name: 'x', verbose: true });
  });

  it('an unknown option, a missing value or a positional is a UsageError', () => {
    expect(() => parseCommandLine(SPEC, ['--nope'])).toThrow(UsageError);
    expect(() => parseCommandLine(SPEC, ['--name'])).toThrow(UsageError);
    expect(() => parseCommandLine(SPEC, ['stray'])).toThrow(UsageError);
  });

  it('--help goes to stdout with exit 0, before the command\'s own checks run', () => {
    const io = fakeIo();
    expect(() =>
      readCommandLine(SPEC, ['--help'], () => {
        throw new Error('not reached');
      }, io),
    ).toThrow(new Exit(0));
    expect(io.out).toBe(`${helpText(SPEC)}\n`);
    expect(io.err).toBe('');
  });

  it('a usage error, the parser\'s or the command\'s own, goes to stderr with exit 2', () => {
    const io = fakeIo();
    expect(() =>
      readCommandLine(SPEC, ['--port', 'x'], () => {
        throw new UsageError('--port must be a number');
      }, io),
    ).toThrow(new Exit(2));
    expect(io.err).toBe('error: --port must be a number\nUsage: npm run tool -- [options]\n(--help explains every option)\n');
    expect(io.out).toBe('');
    expect(readCommandLine(SPEC, ['--port', '1'], (values) => Number(values.port), fakeIo())).toBe(1);
  });
});
