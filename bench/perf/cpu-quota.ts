// A CPU quota for the benchmark's extender containers, as Lambda gives CPU in
// proportion to memory (1 vCPU at 1,769 MB, so about 0.29 vCPU at 512 MB): a
// cgroup with `vcpu` × 100 ms of CPU per 100 ms period, cgroup v2 (`cpu.max`)
// or v1 (`cpu.cfs_quota_us`). Creating one needs write access to the cgroup
// tree (root on this machine); without it the benchmark stops with the error
// rather than measure at full CPU under a quota's name.
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const PERIOD_US = 100_000;
/** Lambda's ratio: one vCPU per 1,769 MB. */
export const LAMBDA_MB_PER_VCPU = 1769;

export interface CpuQuota {
  readonly vcpu: number;
  /** Moves a process (and the threads and children it starts after this) under the quota. */
  add(pid: number): void;
  /** Removes the cgroup once its processes have exited. */
  remove(): void;
}

const MAX_VCPU = 64;

/** Why `vcpu` cannot be a quota (`text`: how the user wrote it), or undefined when it can. */
export function invalidVcpu(vcpu: number, text = String(vcpu)): string | undefined {
  return vcpu > 0 && vcpu <= MAX_VCPU ? undefined : `must be a number of vCPU in (0, ${MAX_VCPU}], got ${text}`;
}

export function createCpuQuota(vcpu: number, name = `eks-gpu-bench-${process.pid}`): CpuQuota {
  const problem = invalidVcpu(vcpu);
  if (problem !== undefined) throw new Error(`--scale-vcpu ${problem}`);
  const quotaUs = Math.round(vcpu * PERIOD_US);
  const v2 = existsSync('/sys/fs/cgroup/cgroup.controllers');
  const dir = v2 ? join('/sys/fs/cgroup', name) : join('/sys/fs/cgroup/cpu', name);
  try {
    mkdirSync(dir, { recursive: true });
    if (v2) {
      writeFileSync(join(dir, 'cpu.max'), `${quotaUs} ${PERIOD_US}`);
    } else {
      writeFileSync(join(dir, 'cpu.cfs_period_us'), String(PERIOD_US));
      writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(quotaUs));
    }
  } catch (error) {
    throw new Error(`cannot create a CPU quota cgroup at ${dir} (needs write access to the cgroup tree, e.g. root; cgroup v2 also the cpu controller enabled in the parent's cgroup.subtree_control): ${(error as Error).message}`);
  }
  return {
    vcpu,
    add(pid) {
      writeFileSync(join(dir, 'cgroup.procs'), String(pid));
    },
    remove() {
      const left = readFileSync(join(dir, 'cgroup.procs'), 'utf8').trim();
      if (left === '') rmdirSync(dir);
    },
  };
}
