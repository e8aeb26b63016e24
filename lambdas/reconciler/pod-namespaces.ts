import type { Env } from '../env';
import { envList } from '../env';

const NAMESPACE_NAME = /[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?/;

/**
 * POD_NAMESPACES: the namespaces whose opted-in pods are reconciled; empty
 * means all. The CDK app reads the same variable with this function to grant
 * the reconciler pod access in exactly these namespaces.
 */
export function podNamespacesFromEnv(env: Env): readonly string[] {
  return envList(env, 'POD_NAMESPACES', { default: [], itemPattern: NAMESPACE_NAME });
}
