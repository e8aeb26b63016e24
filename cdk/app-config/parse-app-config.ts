import type { AppConfig } from './app-config';
import { appConfigSchema } from './app-config-schema';
import { parseOrThrow } from './config-problems';

/**
 * Validates raw configuration (from cdk.json context and/or a config file)
 * and fills in defaults. Throws one AppConfigError naming every bad key.
 */
export function parseAppConfig(raw: unknown): AppConfig {
  return parseOrThrow(appConfigSchema, raw ?? {});
}
