//go:build tools

// Package tools keeps sigs.k8s.io/kueue (and so its controller manager's main
// package, sigs.k8s.io/kueue/cmd/kueue) in go.mod and go.sum: nothing else in
// this module imports it, and `go mod tidy` would otherwise drop it.
// local/builds/kueue-binaries.ts builds that main package from here.
package tools

import _ "sigs.k8s.io/kueue/cmd/kueue"
