/**
 * The scheduling library: pure, synchronous, no I/O, imports nothing else of
 * ours. The extender, the simulator and the benchmarks all run this code.
 */
export * from './keys';
export * from './reasons';
export * from './gpu-health-reasons';
export * from './node-health';
export * from './quantity';
export * from './gpu-model';
export * from './gpu-node-facts';
export * from './dra-gpus';
export * from './dra-claims';
export * from './label-selector';
export * from './kube-json';
export * from './resources';
export * from './node-info';
export * from './pod-info';
export * from './pod-requirements';
export * from './snapshot';
export * from './mirror-snapshots';
export * from './framework';
export * from './cluster-outcome';
export * from './gpu-health-outcome';
export * from './explain';
export * from './profile';
export * from './profiles';
export { GPU_FIT_NAME, gpuFit } from './plugins/gpu-fit';
export { GPU_HEALTH_NAME, gpuHealth, isDistributed } from './plugins/gpu-health';
export { GPU_SCORE_NAME, createGpuScore, gpuScore } from './plugins/gpu-score';
export type { GpuScoreOptions } from './plugins/gpu-score';
export { GPU_PACKING_NAME, gpuPacking } from './plugins/gpu-packing';
export { LEVEL_POINTS, NETWORK_LOCALITY_NAME, PEER_SHARE_POINTS, networkLocality } from './plugins/network-locality';
export { chooseJobBlock, levelToBlock, podsThatFit } from './job-block';
export type { JobBlock, PeerPlacement } from './job-block';
export * from './network-topology';
export { NODE_RESOURCES_FIT_NAME, nodeResourcesFit } from './plugins/node-resources-fit';
export * from './device-choice';
export { BEST_FIT_NAME, bestFit, createBestFit } from './plugins/best-fit';
export type { BestFitOptions } from './plugins/best-fit';
export { GPU_SHARE_PACKING_NAME, gpuSharePacking } from './plugins/gpu-share-packing';
export { LEAST_ALLOCATED_NAME, leastAllocated } from './plugins/least-allocated';
export { RANDOM_PLACEMENT_NAME, createRandomPlacement } from './plugins/random-device';
export { FRAGMENTATION_NAME, createFragmentationScore } from './plugins/fragmentation';
export type { FragmentationOptions } from './plugins/fragmentation';
export { typicalShapes } from './fragmentation/workload-shapes';
export type { ShapeSample, WorkloadShape } from './fragmentation/workload-shapes';
