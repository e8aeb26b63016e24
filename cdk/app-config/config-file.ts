import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { errorMessage } from '../../lambdas/common/error-message';

/** Why a configuration file could not be read; callers put it under their own key or flag. */
export class ConfigFileError extends Error {
  override readonly name = 'ConfigFileError';
  constructor(
    readonly problem: 'extension' | 'unreadable' | 'syntax',
    message: string,
  ) {
    super(message);
  }
}

const EXTENSIONS = ['.json', '.yaml', '.yml'];

/**
 * Reads a JSON (`.json`) or YAML (`.yaml`, `.yml`) file into plain data: the
 * one loader behind the CDK app's config file and `npm start`'s scenario file.
 * `what` names the file in messages ("cannot read scenario ./x.yaml").
 */
export function readConfigFile(path: string, what?: string): unknown {
  const label = what === undefined ? '' : `${what} `;
  const extension = extname(path).toLowerCase();
  if (!EXTENSIONS.includes(extension)) {
    throw new ConfigFileError('extension', `must name a .json, .yaml or .yml file, got ${JSON.stringify(path)}`);
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigFileError('unreadable', `cannot read ${label}${path}: ${errorMessage(error)}`);
  }
  try {
    return extension === '.json' ? (JSON.parse(text) as unknown) : (parseYaml(text) as unknown);
  } catch (error) {
    throw new ConfigFileError('syntax', `${label}${path} is not valid ${extension === '.json' ? 'JSON' : 'YAML'}: ${errorMessage(error)}`);
  }
}
