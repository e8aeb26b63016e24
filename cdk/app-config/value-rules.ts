import type { TextRule } from './schema-rules';

// The forms of the values several parts of the config share.

export const DNS_LABEL: TextRule = { pattern: /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, allowed: 'a DNS-1123 label (lowercase letters, digits, "-", at most 63)' };

const OCTET = '(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = `${OCTET}(\\.${OCTET}){3}`;
export const CIDR: TextRule = { pattern: new RegExp(`^${IPV4}/(3[0-2]|[12]?\\d)$`), allowed: 'an IPv4 CIDR such as 10.0.0.0/16' };
/** What a VPC accepts as its range: /16 to /28. */
export const VPC_CIDR: TextRule = { pattern: new RegExp(`^${IPV4}/(1[6-9]|2[0-8])$`), allowed: 'an IPv4 CIDR from /16 to /28 such as 10.0.0.0/16' };

export const INSTANCE_TYPE: TextRule = { pattern: /^[a-z][a-z0-9-]*\.[a-z0-9]+$/, allowed: 'an EC2 instance type such as m7i.large' };
/**
 * Only the form is checked at synth: whether a type has NVIDIA GPUs is EC2's
 * to say, and the stack asks it at deploy time (GpuInstanceTypeCheck), so a
 * family released after this code is accepted without a release of it.
 */
export const GPU_INSTANCE_TYPE: TextRule = {
  pattern: INSTANCE_TYPE.pattern,
  allowed: 'an EC2 instance type with NVIDIA GPUs such as g5.xlarge (checked against DescribeInstanceTypes when deploying)',
};
export const AVAILABILITY_ZONE: TextRule = { pattern: /^[a-z]{2}(-[a-z]+)+-\d[a-z]$/, allowed: 'an availability zone name such as us-east-1a' };

/** Kubernetes label and taint keys (a qualified name with an optional DNS prefix). */
export const QUALIFIED_NAME = /^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
export const LABEL_VALUE: TextRule = { pattern: /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/, allowed: 'a Kubernetes label value' };
export const LABEL_KEY: TextRule = { pattern: QUALIFIED_NAME, allowed: 'a Kubernetes label key' };
export const TAINT_KEY: TextRule = { pattern: QUALIFIED_NAME, allowed: 'a Kubernetes taint key such as nvidia.com/gpu' };

export const ENVIRONMENT_VARIABLE: TextRule = { pattern: /^[A-Za-z_][A-Za-z0-9_]*$/, allowed: 'an environment variable name' };
