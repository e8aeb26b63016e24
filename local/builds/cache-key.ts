// What a cached build was made from, and the key that names its folder: a
// change to any input (a file of the template module, such as
// cmd/etcd/main.go or go.sum; the Go release; the platform; the build's
// arguments and environment; what is copied from the module) gives another
// key, so the next run builds anew beside the older build.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export interface BuildInputs {
  readonly name: string;
  /** The pinned module and the version go.mod requires of it. */
  readonly module: string;
  readonly version: string;
  /** The Go release that builds it (`go1.26.8`, or go.mod's toolchain line). */
  readonly toolchain: string;
  /** `GOOS/GOARCH` of the installed Go. */
  readonly platform: string;
  readonly env: Readonly<Record<string, string>>;
  /** `go build`'s arguments, the output folder written as `bin/`; empty for a module that is only downloaded. */
  readonly buildArgs: readonly string[];
  /** Files or folders of the module's source copied into the cache folder. */
  readonly copies: readonly { readonly from: string; readonly to: string }[];
  /** Every file of the template module (path relative to it, `/`-separated) with the SHA-256 of its content. */
  readonly files: readonly (readonly [string, string])[];
}

/** Every file below `dir`, as sorted `/`-separated paths relative to it, each with the SHA-256 of its content. */
export function moduleFiles(dir: string): [string, string][] {
  const walk = (folder: string): string[] =>
    readdirSync(folder, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? walk(join(folder, entry.name)) : [join(folder, entry.name)]));
  return walk(dir)
    .map((file): [string, string] => [relative(dir, file).split(sep).join('/'), createHash('sha256').update(readFileSync(file)).digest('hex')])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** 12 hex digits of the SHA-256 of the inputs, written as JSON in a fixed order. */
export function cacheKey(inputs: BuildInputs): string {
  const canonical = JSON.stringify([
    inputs.name,
    inputs.module,
    inputs.version,
    inputs.toolchain,
    inputs.platform,
    Object.entries(inputs.env).sort(([a], [b]) => (a < b ? -1 : 1)),
    inputs.buildArgs,
    inputs.copies.map(({ from, to }) => [from, to]),
    inputs.files,
  ]);
  return createHash('sha256').update(canonical).digest('hex').slice(0, 12);
}
