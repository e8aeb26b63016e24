// Runs a TypeScript program of this repository as one node process with tsx's
// loader (`node --import tsx program.ts`), not through the `tsx` command: that
// one is a wrapper process that relays signals to its child and kills it when
// it has not exited shortly after, so a signal sent to a process group reaches
// the program twice and a slow teardown is cut short.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

/** tsx's loader, for node's --import. */
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** node's arguments that run `program` (an absolute path) with `args`; spawn them with process.execPath. */
export function typescriptProgramArgs(program: string, args: readonly string[] = []): string[] {
  return ['--import', TSX_LOADER, program, ...args];
}
