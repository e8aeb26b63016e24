// local/start/pipeline.ts's import path for building Kubernetes and etcd,
// which lives in build/kube-binaries.ts.
export * from './build/kube-binaries';
