import { resolve } from 'node:path';
import { errorMessage } from '../../lambdas/common/error-message';
import type { AppConfig } from './app-config';
import { AppConfigError } from './app-config-error';
import { ConfigFileError, readConfigFile } from './config-file';
import { parseAppConfig } from './parse-app-config';

/** cdk.json / `-c` context key holding configuration inline. */
export const CONFIG_CONTEXT_KEY = 'gpuScheduling';
/** cdk.json / `-c` context key naming a JSON or YAML config file. */
export const CONFIG_FILE_CONTEXT_KEY = 'configFile';

/** Reads the file `configFile` names; its problems are reported under that key. */
function readAppConfigFile(path: string): unknown {
  try {
    return readConfigFile(path);
  } catch (error) {
    if (error instanceof ConfigFileError) throw new AppConfigError(CONFIG_FILE_CONTEXT_KEY, error.message);
    throw error;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Objects merge key by key; anything else (lists included) in `override` replaces `base`. */
function deepMerge(base: unknown, override: unknown): unknown {
  if (override === undefined) return base;
  if (!isObject(base) || !isObject(override)) return override;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) merged[key] = deepMerge(base[key], value);
  return merged;
}

export interface ConfigSources {
  /** Value of the `configFile` context key, resolved against `cwd`. */
  readonly configFile?: unknown;
  /** Value of the `gpuScheduling` context key: an object, or JSON text when given with `-c`. */
  readonly inline?: unknown;
  readonly cwd: string;
}

/**
 * The app's configuration: defaults, overridden by the config file, overridden
 * by inline context. The same loader serves `cdk synth` and local tooling.
 */
export function loadAppConfig(sources: ConfigSources): AppConfig {
  let fromFile: unknown;
  if (sources.configFile !== undefined) {
    if (typeof sources.configFile !== 'string' || sources.configFile.trim() === '') {
      throw new AppConfigError(CONFIG_FILE_CONTEXT_KEY, `must be a file path, got ${JSON.stringify(sources.configFile)}`);
    }
    fromFile = readAppConfigFile(resolve(sources.cwd, sources.configFile));
  }
  let inline = sources.inline;
  if (typeof inline === 'string') {
    try {
      inline = JSON.parse(inline) as unknown;
    } catch (error) {
      throw new AppConfigError(CONFIG_CONTEXT_KEY, `must be an object or JSON text: ${errorMessage(error)}`);
    }
  }
  return parseAppConfig(deepMerge(fromFile ?? {}, inline));
}
