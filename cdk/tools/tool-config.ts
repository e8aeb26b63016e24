// The configuration a developer tool reads: the file named by --config, else
// cdk.json's context (its configFile and inline settings), as `cdk synth` reads it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AppConfig } from '../app-config/app-config';
import { CONFIG_CONTEXT_KEY, CONFIG_FILE_CONTEXT_KEY, loadAppConfig } from '../app-config/load-app-config';

export function loadToolConfig(file: string | undefined, cwd: string = process.cwd()): AppConfig {
  if (file !== undefined) return loadAppConfig({ configFile: file, cwd });
  const context = (JSON.parse(readFileSync(join(cwd, 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> }).context ?? {};
  return loadAppConfig({ configFile: context[CONFIG_FILE_CONTEXT_KEY], inline: context[CONFIG_CONTEXT_KEY], cwd });
}
