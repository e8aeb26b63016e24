// Template module: pins the Prometheus Operator release whose CRDs (monitoring.coreos.com/v1)
// the stack's PodMonitor is checked against (test/e2e/prometheus-scrape.test.ts).
// local/builds/prometheus-operator-crds.ts downloads it and copies the CRD it reads into
// ~/.cache/eks-gpu-scheduling/; nothing is built.
module eks-gpu-scheduling/prometheus-operator

go 1.25.0

require github.com/prometheus-operator/prometheus-operator v0.85.0
