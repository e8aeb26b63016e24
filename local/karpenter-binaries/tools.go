//go:build tools

// Package tools keeps sigs.k8s.io/karpenter (and so its kwok provider's main
// package, sigs.k8s.io/karpenter/kwok) in go.mod and go.sum: nothing else in
// this module imports it, and `go mod tidy` would otherwise drop it.
// local/build-karpenter.ts builds that main package from here.
package tools

import _ "sigs.k8s.io/karpenter/kwok"
