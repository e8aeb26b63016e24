// local/start/pipeline.ts's import path for Karpenter's build, which lives in
// build/karpenter-binaries.ts.
export * from './builds/karpenter-binaries';
