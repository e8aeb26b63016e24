package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kwok "sigs.k8s.io/karpenter/kwok/cloudprovider"
	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
)

// An EKS node's providerID: aws:///<zone>/<instance-id>.
var awsProviderID = regexp.MustCompile(`^aws:///([a-z0-9-]+)/(i-[0-9a-f]+)$`)

// cloudProvider is the kwok provider (instance types, offerings, scheduling,
// node objects) with one EC2 instance behind each NodeClaim. Only the calls
// that deal in instances are its own; the rest are kwok's.
type cloudProvider struct {
	*kwok.CloudProvider
	instances *instances
	launches  *launchBook
}

// Create lets kwok pick the instance type and offering and prepare the Node,
// launches that type in that zone, and reports the instance's providerID,
// which the Node gets too (nodeIdentityClient).
func (c *cloudProvider) Create(ctx context.Context, nodeClaim *v1.NodeClaim) (*v1.NodeClaim, error) {
	created, err := c.CloudProvider.Create(ctx, nodeClaim)
	if err != nil {
		return nil, err
	}
	kwokName := strings.TrimPrefix(created.Status.ProviderID, kwokProviderPrefix)
	instanceType, zone := created.Labels[corev1.LabelInstanceTypeStable], created.Labels[corev1.LabelTopologyZone]
	instance, err := c.instances.launch(ctx, nodeClaim.Labels[v1.NodePoolLabelKey], nodeClaim.Name, instanceType, zone)
	if err != nil {
		c.launches.settle(kwokName, launchedInstance{}, err)
		return nil, fmt.Errorf("launching the instance for nodeclaim %s, %w", nodeClaim.Name, err)
	}
	launched := launchedInstance{
		providerID: fmt.Sprintf("aws:///%s/%s", zone, aws.ToString(instance.InstanceId)),
		nodeName:   aws.ToString(instance.PrivateDnsName),
	}
	c.launches.settle(kwokName, launched, nil)
	created.Name = launched.nodeName
	created.Status.NodeName = launched.nodeName
	created.Status.ProviderID = launched.providerID
	created.Status.ImageID = aws.ToString(instance.ImageId)
	return created, nil
}

// Delete terminates the instance, then lets kwok finish as it does (it
// reports the NodeClaim's instance gone).
func (c *cloudProvider) Delete(ctx context.Context, nodeClaim *v1.NodeClaim) error {
	if id, ok := instanceID(nodeClaim.Status.ProviderID); ok {
		instance, err := c.instances.describe(ctx, id)
		if err != nil {
			return fmt.Errorf("deleting nodeclaim %s, %w", nodeClaim.Name, err)
		}
		if !ended(instance) {
			if err := c.instances.terminate(ctx, id); err != nil {
				return fmt.Errorf("deleting nodeclaim %s, %w", nodeClaim.Name, err)
			}
		}
	}
	return c.CloudProvider.Delete(ctx, nodeClaim)
}

// Get is the instance behind providerID: not found once it has ended;
// kwok's view of its Node when the Node exists.
func (c *cloudProvider) Get(ctx context.Context, providerID string) (*v1.NodeClaim, error) {
	id, ok := instanceID(providerID)
	if !ok {
		return nil, cloudprovider.NewNodeClaimNotFoundError(fmt.Errorf("providerID %q is not an EC2 instance's (aws:///<zone>/<instance-id>)", providerID))
	}
	instance, err := c.instances.describe(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("getting instance %s, %w", id, err)
	}
	if ended(instance) {
		return nil, cloudprovider.NewNodeClaimNotFoundError(fmt.Errorf("instance %s is gone", id))
	}
	nodeClaim, err := c.CloudProvider.Get(ctx, kwokProviderPrefix+aws.ToString(instance.PrivateDnsName))
	if cloudprovider.IsNodeClaimNotFoundError(err) {
		// Launched, its Node not registered yet.
		return instanceNodeClaim(*instance), nil
	}
	return nodeClaim, err
}

// List is every instance this cluster's Karpenter launched that has not
// ended: what Karpenter's garbage collection compares NodeClaims against.
func (c *cloudProvider) List(ctx context.Context) ([]*v1.NodeClaim, error) {
	found, err := c.instances.list(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing instances, %w", err)
	}
	nodeClaims := make([]*v1.NodeClaim, 0, len(found))
	for _, instance := range found {
		nodeClaims = append(nodeClaims, instanceNodeClaim(instance))
	}
	return nodeClaims, nil
}

func instanceID(providerID string) (string, bool) {
	match := awsProviderID.FindStringSubmatch(providerID)
	if match == nil {
		return "", false
	}
	return match[2], true
}

// instanceNodeClaim is a NodeClaim as the instance alone describes it.
func instanceNodeClaim(instance types.Instance) *v1.NodeClaim {
	zone := ""
	if instance.Placement != nil {
		zone = aws.ToString(instance.Placement.AvailabilityZone)
	}
	return &v1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{
			Name: tagValue(instance, tagNodeClaim),
			Labels: map[string]string{
				v1.NodePoolLabelKey:            tagValue(instance, tagNodePool),
				corev1.LabelInstanceTypeStable: string(instance.InstanceType),
				corev1.LabelTopologyZone:       zone,
			},
		},
		Status: v1.NodeClaimStatus{
			NodeName:   aws.ToString(instance.PrivateDnsName),
			ProviderID: fmt.Sprintf("aws:///%s/%s", zone, aws.ToString(instance.InstanceId)),
			ImageID:    aws.ToString(instance.ImageId),
		},
	}
}
