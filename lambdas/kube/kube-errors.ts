/**
 * client-node 1.x throws ApiException with an HTTP `code`; it is not exported
 * from the package root, so recognise it by shape.
 */
export function kubeStatusCode(error: unknown): number | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'number') return error.code;
  return undefined;
}

export function isKubeNotFound(error: unknown): boolean {
  return kubeStatusCode(error) === 404;
}

export function isKubeConflict(error: unknown): boolean {
  return kubeStatusCode(error) === 409;
}

/** 422: among others, a JSON Patch whose `test` operation no longer holds. */
export function isKubeInvalid(error: unknown): boolean {
  return kubeStatusCode(error) === 422;
}
