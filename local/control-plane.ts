// local/start/pipeline.ts's import path for the control plane, which lives in
// control-plane/control-plane.ts. `npm start` runs the Lambdas as deployed, so
// the control plane it starts here also gets the product's admission policies
// (policies/product-policies.ts).
import { startControlPlane as startBareControlPlane, type ControlPlane, type ControlPlaneOptions } from './control-plane/control-plane';
import { installProductPolicies } from './policies/product-policies';

export type { ControlPlane, ControlPlaneInfo, ControlPlaneOptions } from './control-plane/control-plane';

/** The control plane with the product's admission policies installed. */
export async function startControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const controlPlane = await startBareControlPlane(options);
  try {
    await installProductPolicies(controlPlane.info);
  } catch (error) {
    await controlPlane.stop();
    throw error;
  }
  return controlPlane;
}
