import { isKubeNotFound } from '../kube';

/**
 * A write to a node that may have been deleted meanwhile (a Spot
 * interruption, Karpenter's consolidation, an operator): 404 means there is
 * nothing left to label, which is no error; undefined then.
 */
export async function unlessNodeGone<T>(write: () => Promise<T>): Promise<T | undefined> {
  try {
    return await write();
  } catch (error) {
    if (isKubeNotFound(error)) return undefined;
    throw error;
  }
}
