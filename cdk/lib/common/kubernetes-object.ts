/** A Kubernetes object as kubectl applies it: what every room's manifests are built as. */
export type KubernetesObject = Record<string, unknown>;
