import type { AppConfig } from './app-config';
import { parseAppConfig } from './parse-app-config';

/** The configuration of a config file that sets nothing: every default of the schema (app-config-schema.ts). */
export const APP_CONFIG_DEFAULTS: AppConfig = parseAppConfig(undefined);
