package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The kwok provider's providerID prefix (unexported in its package).
const kwokProviderPrefix = "kwok://"

// How long the Node the kwok provider creates may wait for its instance: a
// launch is one RunInstances call, so this only bounds a hung EC2 endpoint.
const launchWait = 2 * time.Minute

// launchedInstance is what a Node takes from its instance.
type launchedInstance struct {
	providerID string
	nodeName   string
}

type pendingLaunch struct {
	done     chan struct{}
	instance launchedInstance
	err      error
}

// launchBook hands each launch's instance to the Node the kwok provider
// creates for it. The kwok provider names the Node and creates it from a
// goroutine after its Create returns; the instance is launched after that
// (only then are the instance type and zone known), so the Node waits here.
type launchBook struct {
	mu      sync.Mutex
	pending map[string]*pendingLaunch
}

func newLaunchBook() *launchBook {
	return &launchBook{pending: map[string]*pendingLaunch{}}
}

func (b *launchBook) entry(kwokName string) *pendingLaunch {
	b.mu.Lock()
	defer b.mu.Unlock()
	entry, ok := b.pending[kwokName]
	if !ok {
		entry = &pendingLaunch{done: make(chan struct{})}
		b.pending[kwokName] = entry
	}
	return entry
}

// settle records the outcome of the launch for the Node kwok named kwokName.
func (b *launchBook) settle(kwokName string, instance launchedInstance, err error) {
	entry := b.entry(kwokName)
	entry.instance, entry.err = instance, err
	close(entry.done)
}

// await returns the instance launched for the Node kwok named kwokName.
func (b *launchBook) await(ctx context.Context, kwokName string) (launchedInstance, error) {
	entry := b.entry(kwokName)
	timer := time.NewTimer(launchWait)
	defer timer.Stop()
	select {
	case <-entry.done:
	case <-timer.C:
		return launchedInstance{}, fmt.Errorf("no instance was launched for node %s within %s", kwokName, launchWait)
	case <-ctx.Done():
		return launchedInstance{}, ctx.Err()
	}
	if entry.err != nil {
		// Kept, so that the kwok provider's retries of this Create fail at once too.
		return launchedInstance{}, fmt.Errorf("launching the instance for node %s, %w", kwokName, entry.err)
	}
	b.mu.Lock()
	delete(b.pending, kwokName)
	b.mu.Unlock()
	return entry.instance, nil
}

// nodeIdentityClient is the kwok provider's client: a Node it creates takes
// its instance's private DNS name and providerID before it reaches the API
// server (spec.providerID cannot change afterwards). Everything else passes through.
type nodeIdentityClient struct {
	client.Client
	launches *launchBook
}

func (c nodeIdentityClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	if node, ok := obj.(*corev1.Node); ok && strings.HasPrefix(node.Spec.ProviderID, kwokProviderPrefix) {
		instance, err := c.launches.await(ctx, strings.TrimPrefix(node.Spec.ProviderID, kwokProviderPrefix))
		if err != nil {
			return err
		}
		node.Name = instance.nodeName
		node.Spec.ProviderID = instance.providerID
	}
	return c.Client.Create(ctx, obj, opts...)
}
