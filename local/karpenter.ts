// local/start/pipeline.ts's import path for the local Karpenter, which lives
// in addons/karpenter.ts.
export * from './addons/karpenter';
