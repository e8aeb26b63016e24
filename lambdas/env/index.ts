export { ConfigError } from './config-error';
export { parseDuration } from '../scheduling/duration';
export {
  envBoolean,
  envDuration,
  envEnum,
  envInt,
  envList,
  envNumber,
  envOptionalString,
  envString,
  isEnvSet,
} from './env-readers';
export type { DurationOptions, Env, IntOptions, ListOptions, NumberOptions, StringOptions } from './env-readers';
