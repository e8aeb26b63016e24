export { BearerTokenAuthenticator, EKS_AUTH_PROVIDER_NAME } from './bearer-token-authenticator';
export { clearClusterEndpointCache, describeClusterEndpoint } from './eks-cluster-endpoint';
export type { EksClusterEndpoint } from './eks-cluster-endpoint';
export {
  CLUSTER_ID_HEADER,
  createEksToken,
  EKS_TOKEN_PREFIX,
  PRESIGN_EXPIRES_SECONDS,
  stsHostname,
  TOKEN_VALIDITY_MS,
} from './eks-token';
export type { EksTokenRequest } from './eks-token';
export { DEFAULT_TOKEN_REFRESH_AFTER_MS, EksTokenSource } from './eks-token-source';
export type { BearerTokenSource, EksTokenSourceOptions } from './eks-token-source';
export { isKubeConflict, isKubeInvalid, isKubeNotFound, kubeStatusCode } from './kube-errors';
export { CLUSTER_NAME_PATTERN, eksKubeConfig, kubeConfigFromEnvironment, kubeConfigOf } from './kube-config';
export { JSON_PATCH_OPTIONS } from './json-patch';
export type { JsonPatchOperation } from './json-patch';
export { FIELD_MANAGER, MERGE_PATCH_OPTIONS } from './merge-patch';
export type { MetadataPatch } from './merge-patch';
export { createNodeGateway, DEFAULT_PAGE_SIZE } from './node-gateway';
export { collectPages, paginate } from './paginate';
export type { ListOptions, NodeGateway } from './node-gateway';
export { createPodGateway } from './pod-gateway';
export { createDraGateway } from './dra-gateway';
export type { DraGateway, DraListOptions } from './dra-gateway';
export type { PodGateway, PodListOptions } from './pod-gateway';
