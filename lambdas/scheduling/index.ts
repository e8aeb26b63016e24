/**
 * The scheduling library: pure, synchronous, no I/O, imports nothing else of
 * ours. The extender, the simulator and the benchmarks all run this code.
 */
export * from './keys';
export * from './reasons';
export * from './quantity';
export * from './gpu-model';
export * from './label-selector';
export * from './kube-json';
export * from './resources';
export * from './node-info';
export * from './pod-info';
export * from './pod-requirements';
export * from './snapshot';
export * from './framework';
export * from './profile';
export * from './profiles';
export { gpuFit } from './plugins/gpu-fit';
export { createGpuScore, gpuScore } from './plugins/gpu-score';
export type { GpuScoreOptions } from './plugins/gpu-score';
export { gpuPacking } from './plugins/gpu-packing';
export { networkLocality } from './plugins/network-locality';
export { nodeResourcesFit } from './plugins/node-resources-fit';
export * from './device-choice';
export { bestFit, createBestFit } from './plugins/best-fit';
export type { BestFitOptions } from './plugins/best-fit';
export { gpuSharePacking } from './plugins/gpu-share-packing';
export { leastAllocated } from './plugins/least-allocated';
export { createRandomPlacement } from './plugins/random-device';
export { createFragmentationScore } from './plugins/fragmentation';
export type { FragmentationOptions } from './plugins/fragmentation';
export { typicalShapes } from './plugins/workload-shapes';
export type { ShapeSample, WorkloadShape } from './plugins/workload-shapes';
