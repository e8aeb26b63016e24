import { parse } from 'yaml';
import { isRecord } from '../lambdas/scheduling/kube-json';
import type { ProfileOptions } from '../lambdas/scheduling/profiles';
import { DEFAULT_WEIGHTS } from '../lambdas/scheduling/profiles';
import { InputError } from './kube-list-file';

const GPU_SCORE_KEYS = ['fitWeight', 'utilizationWeight', 'unknownUtilizationScore'] as const;
/** The app config's extender.capacityBlockDrainMarginMinutes, under the same name. */
const DRAIN_MARGIN_KEY = 'capacityBlockDrainMarginMinutes';

/**
 * The simulator's --weights file (JSON or YAML): the same options the
 * extender takes, e.g. `weights: {GpuScore: 2, NetworkLocality: 1}`,
 * `gpuScore: {fitWeight: 0.7}` and `capacityBlockDrainMarginMinutes: 40` (the
 * app config's setting of that name). Unknown keys are errors, so a typo never
 * silently falls back to a default.
 */
export function parseSimulatorConfig(text: string, source: string): ProfileOptions {
  let value: unknown;
  try {
    value = parse(text);
  } catch (error) {
    throw new InputError(`${source}: not valid JSON or YAML: ${error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error)}`);
  }
  if (value === null || value === undefined) return {};
  if (!isRecord(value)) throw new InputError(`${source}: expected an object with "weights", "gpuScore" and/or "${DRAIN_MARGIN_KEY}"`);
  for (const key of Object.keys(value)) {
    if (key !== 'weights' && key !== 'gpuScore' && key !== DRAIN_MARGIN_KEY) throw new InputError(`${source}: unknown key "${key}" (allowed: weights, gpuScore, ${DRAIN_MARGIN_KEY})`);
  }
  const weights = numberMap(value.weights, Object.keys(DEFAULT_WEIGHTS), `${source}: weights`, 1000);
  const gpuScore = numberMap(value.gpuScore, GPU_SCORE_KEYS, `${source}: gpuScore`, 100);
  const margin = numberMap(DRAIN_MARGIN_KEY in value ? { [DRAIN_MARGIN_KEY]: value[DRAIN_MARGIN_KEY] } : undefined, [DRAIN_MARGIN_KEY], source, 1440);
  return {
    ...(weights === undefined ? {} : { weights }),
    ...(gpuScore === undefined ? {} : { gpuScore }),
    ...(margin === undefined ? {} : { capacityBlockEnd: { drainMarginMs: (margin[DRAIN_MARGIN_KEY] ?? 0) * 60_000 } }),
  };
}

function numberMap(value: unknown, allowed: readonly string[], where: string, max: number): Record<string, number> | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) throw new InputError(`${where} must be an object`);
  const out: Record<string, number> = {};
  for (const [key, raw] of Object.entries(value)) {
    if (!allowed.includes(key)) throw new InputError(`${where}: unknown key "${key}" (allowed: ${allowed.join(', ')})`);
    if (typeof raw !== 'number' || !Number.isFinite(raw) || raw < 0 || raw > max) {
      throw new InputError(`${where}.${key} must be a number from 0 to ${max}, got ${JSON.stringify(raw)}`);
    }
    out[key] = raw;
  }
  return out;
}
