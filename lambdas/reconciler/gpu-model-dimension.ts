import { GPU_MODELS } from '../observability/metric-catalog';

export type GpuModelValue = (typeof GPU_MODELS)[number];
const KNOWN_MODELS: ReadonlySet<string> = new Set(GPU_MODELS);

/** The GpuModel dimension value of a canonical model name (bounded: unlisted models are `Other`). */
export function gpuModelValue(model: string): GpuModelValue {
  if (model === 'unknown') return 'Unknown';
  return KNOWN_MODELS.has(model) && model !== 'Unknown' && model !== 'Other' ? (model as GpuModelValue) : 'Other';
}
