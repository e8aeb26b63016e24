// Template module: pins Karpenter's AWS provider at the chart version the stack installs
// (cdk/lib/karpenter/karpenter-release.ts; the build refuses another). Its CRDs and chart
// values are what the stack's Karpenter manifests are checked against
// (test/e2e/karpenter-manifests.test.ts). local/builds/karpenter-aws-provider.ts downloads it
// and copies those files into ~/.cache/eks-gpu-scheduling/; nothing is built.
// Its release train needs the Go release Karpenter's own build uses (the toolchain line).
module eks-gpu-scheduling/karpenter-aws-provider

go 1.26.9

toolchain go1.27.3

require github.com/aws/karpenter-provider-aws v1.15.0
