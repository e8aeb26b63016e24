// local/start/pipeline.ts's import path for starting a kube-scheduler, which
// lives in control-plane/kube-scheduler.ts.
export * from './control-plane/kube-scheduler';
