package main

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"
)

// Tags Karpenter's AWS provider puts on the instances it launches
// (karpenter-provider-aws pkg/providers/instance), which the labeler and
// this provider's List read back.
const (
	tagNodePool  = "karpenter.sh/nodepool"
	tagNodeClaim = "karpenter.sh/nodeclaim"
	tagEKSName   = "eks:eks-cluster-name"
)

func clusterTag(clusterName string) string { return "kubernetes.io/cluster/" + clusterName }

// instances launches, describes and terminates EC2 instances at one endpoint.
type instances struct {
	ec2         *ec2.Client
	clusterName string

	imageOnce sync.Once
	imageID   string
	imageErr  error
}

// newInstancesFromEnv reads AWS_ENDPOINT_URL (required: this provider is for
// a local EC2 such as moto, never the real one), AWS_REGION (default
// us-east-1), AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY and CLUSTER_NAME (the
// cluster the instances are tagged for).
func newInstancesFromEnv(getenv func(string) string) (*instances, error) {
	endpoint := getenv("AWS_ENDPOINT_URL")
	if endpoint == "" {
		return nil, errors.New("AWS_ENDPOINT_URL is not set: it must name the local EC2 endpoint (moto_server) this provider launches instances in")
	}
	clusterName := getenv("CLUSTER_NAME")
	if clusterName == "" {
		return nil, errors.New("CLUSTER_NAME is not set: it names the cluster the launched instances are tagged for (kubernetes.io/cluster/<name>)")
	}
	region := getenv("AWS_REGION")
	if region == "" {
		region = "us-east-1"
	}
	accessKey, secretKey := getenv("AWS_ACCESS_KEY_ID"), getenv("AWS_SECRET_ACCESS_KEY")
	if accessKey == "" || secretKey == "" {
		return nil, errors.New("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set (any values do for moto)")
	}
	credentials := aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
		return aws.Credentials{AccessKeyID: accessKey, SecretAccessKey: secretKey, Source: "environment"}, nil
	})
	client := ec2.New(ec2.Options{Region: region, BaseEndpoint: aws.String(endpoint), Credentials: credentials})
	return &instances{ec2: client, clusterName: clusterName}, nil
}

// image is an AMI the endpoint knows (moto refuses RunInstances without one); looked up once.
func (i *instances) image(ctx context.Context) (string, error) {
	i.imageOnce.Do(func() {
		out, err := i.ec2.DescribeImages(ctx, &ec2.DescribeImagesInput{Owners: []string{"amazon"}})
		if err != nil {
			i.imageErr = fmt.Errorf("DescribeImages, %w", err)
			return
		}
		for _, image := range out.Images {
			if image.ImageId != nil {
				i.imageID = *image.ImageId
				return
			}
		}
		i.imageErr = errors.New("DescribeImages returned no Amazon image to launch from")
	})
	return i.imageID, i.imageErr
}

// launch runs one instance of instanceType in zone, tagged as Karpenter's AWS provider tags its instances.
func (i *instances) launch(ctx context.Context, nodePool, nodeClaim, instanceType, zone string) (types.Instance, error) {
	imageID, err := i.image(ctx)
	if err != nil {
		return types.Instance{}, err
	}
	tags := []types.Tag{
		{Key: aws.String(clusterTag(i.clusterName)), Value: aws.String("owned")},
		{Key: aws.String(tagEKSName), Value: aws.String(i.clusterName)},
		{Key: aws.String(tagNodePool), Value: aws.String(nodePool)},
		{Key: aws.String(tagNodeClaim), Value: aws.String(nodeClaim)},
	}
	out, err := i.ec2.RunInstances(ctx, &ec2.RunInstancesInput{
		ImageId:           aws.String(imageID),
		InstanceType:      types.InstanceType(instanceType),
		MinCount:          aws.Int32(1),
		MaxCount:          aws.Int32(1),
		Placement:         &types.Placement{AvailabilityZone: aws.String(zone)},
		TagSpecifications: []types.TagSpecification{{ResourceType: types.ResourceTypeInstance, Tags: tags}},
	})
	if err != nil {
		return types.Instance{}, fmt.Errorf("RunInstances %s in %s, %w", instanceType, zone, err)
	}
	if len(out.Instances) != 1 || out.Instances[0].InstanceId == nil || aws.ToString(out.Instances[0].PrivateDnsName) == "" {
		return types.Instance{}, fmt.Errorf("RunInstances %s in %s returned %d instances, not one with an id and a private DNS name", instanceType, zone, len(out.Instances))
	}
	return out.Instances[0], nil
}

// describe returns the instance, or nil when EC2 does not know it.
func (i *instances) describe(ctx context.Context, id string) (*types.Instance, error) {
	out, err := i.ec2.DescribeInstances(ctx, &ec2.DescribeInstancesInput{InstanceIds: []string{id}})
	if err != nil {
		var apiErr smithy.APIError
		if errors.As(err, &apiErr) && apiErr.ErrorCode() == "InvalidInstanceID.NotFound" {
			return nil, nil
		}
		return nil, fmt.Errorf("DescribeInstances %s, %w", id, err)
	}
	for _, reservation := range out.Reservations {
		for _, instance := range reservation.Instances {
			if aws.ToString(instance.InstanceId) == id {
				return &instance, nil
			}
		}
	}
	return nil, nil
}

func (i *instances) terminate(ctx context.Context, id string) error {
	if _, err := i.ec2.TerminateInstances(ctx, &ec2.TerminateInstancesInput{InstanceIds: []string{id}}); err != nil {
		return fmt.Errorf("TerminateInstances %s, %w", id, err)
	}
	return nil
}

// list returns the instances this cluster's Karpenter launched that have not ended.
func (i *instances) list(ctx context.Context) ([]types.Instance, error) {
	input := &ec2.DescribeInstancesInput{Filters: []types.Filter{
		{Name: aws.String("tag:" + clusterTag(i.clusterName)), Values: []string{"owned"}},
		{Name: aws.String("tag-key"), Values: []string{tagNodePool}},
		{Name: aws.String("instance-state-name"), Values: []string{"pending", "running", "stopping", "stopped"}},
	}}
	var found []types.Instance
	for pages := ec2.NewDescribeInstancesPaginator(i.ec2, input); pages.HasMorePages(); {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("DescribeInstances, %w", err)
		}
		for _, reservation := range page.Reservations {
			found = append(found, reservation.Instances...)
		}
	}
	return found, nil
}

// ended is true for an instance that is terminated or on its way there.
func ended(instance *types.Instance) bool {
	if instance == nil || instance.State == nil {
		return instance == nil
	}
	return instance.State.Name == types.InstanceStateNameTerminated || instance.State.Name == types.InstanceStateNameShuttingDown
}

func tagValue(instance types.Instance, key string) string {
	for _, tag := range instance.Tags {
		if aws.ToString(tag.Key) == key {
			return aws.ToString(tag.Value)
		}
	}
	return ""
}
