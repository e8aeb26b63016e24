//go:build tools

// Package tools keeps github.com/prometheus/prometheus (and so its main
// package, cmd/prometheus) in go.mod and go.sum: nothing else in this module
// imports it, and `go mod tidy` would otherwise drop it.
// local/builds/prometheus-binary.ts builds that main package from here.
package tools

import _ "github.com/prometheus/prometheus/cmd/prometheus"
