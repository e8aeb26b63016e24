// Command karpenter-ec2 runs Karpenter's operator and controllers, as
// sigs.k8s.io/karpenter/kwok's main does, with a cloud provider that wraps the
// kwok one: every launch is also a real EC2 instance (moto in the local
// harness) of the chosen type in the chosen zone, and its Node carries the
// instance's providerID (aws:///<zone>/<instance-id>) and private DNS name as
// on EKS, so tools that find a node from its instance (our labeler) work on
// the nodes Karpenter launches.
package main

import (
	"os"

	"github.com/samber/lo"
	"sigs.k8s.io/controller-runtime/pkg/log"

	kwok "sigs.k8s.io/karpenter/kwok/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/overlay"
	"sigs.k8s.io/karpenter/pkg/controllers"
	"sigs.k8s.io/karpenter/pkg/controllers/node/health"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/operator"
)

func main() {
	ctx, op := operator.NewOperator()
	instances, err := newInstancesFromEnv(os.Getenv)
	if err != nil {
		log.FromContext(ctx).Error(err, "cannot reach EC2")
		os.Exit(1)
	}
	instanceTypes, err := kwok.ConstructInstanceTypes(ctx)
	if err != nil {
		log.FromContext(ctx).Error(err, "failed constructing instance types")
	}

	launches := newLaunchBook()
	// The kwok provider creates each Node through this client, which gives it the launched instance's identity.
	kwokProvider := kwok.NewCloudProvider(ctx, nodeIdentityClient{Client: op.GetClient(), launches: launches}, instanceTypes)
	overlayUndecoratedCloudProvider := &cloudProvider{CloudProvider: kwokProvider, instances: instances, launches: launches}
	cloudProvider := overlay.Decorate(overlayUndecoratedCloudProvider, op.GetClient(), op.InstanceTypeStore)
	repairPolicyMatcher := lo.Must(health.NewRepairPolicyMatcher(ctx, cloudProvider))
	clusterState := state.NewCluster(op.Clock, op.GetClient(), cloudProvider, state.WithRepairPolicyMatcher(repairPolicyMatcher))
	op.
		WithControllers(ctx, controllers.NewControllers(
			ctx,
			op.Manager,
			op.Clock,
			op.GetClient(),
			op.EventRecorder,
			cloudProvider,
			overlayUndecoratedCloudProvider,
			clusterState,
			op.InstanceTypeStore,
			op.PredictionStore,
		)...).Start(ctx)
}
