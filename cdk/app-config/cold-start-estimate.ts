// How long a cold extender instance takes to list the cluster inside its
// first request, from the measurement in docs/extender.md ("The first
// listing of a cold instance"): at 5,000 GPU nodes and 50,000 bound pods a
// cold first `/filter` took 8,773 ms at 512 MB (0.29 vCPU) and 2,480 ms at
// full CPU. The listing is CPU-bound and Lambda gives CPU in proportion to
// memory up to one vCPU at 1,769 MB (the decoding is single-threaded, so more
// memory gains nothing), and its cost follows the bytes read: 1.2 KB a pod,
// 5.3 KB a node in protobuf (the benchmark's lean objects; real ones are
// larger, hence the margin below).

/** The measured run. */
const MEASURED = { nodes: 5_000, pods: 50_000, memoryMiB: 512, ms: 8_773 } as const;
const KB_PER_POD = 1.2;
const KB_PER_NODE = 5.3;
/** One vCPU: more memory adds no speed to a single-threaded listing. */
export const FULL_VCPU_MIB = 1_769;
/** Real objects (managedFields, env, volumes) and a busy API server: the estimate times this must still fit. */
export const COLD_LIST_MARGIN = 1.5;

const kilobytes = (nodes: number, pods: number): number => nodes * KB_PER_NODE + pods * KB_PER_POD;

/** Estimated seconds of a cold instance's first listing at `memoryMiB`. */
export function coldListSeconds(nodes: number, pods: number, memoryMiB: number): number {
  const msPerKbAtMeasured = MEASURED.ms / kilobytes(MEASURED.nodes, MEASURED.pods);
  const cpuSpeedup = Math.min(memoryMiB, FULL_VCPU_MIB) / MEASURED.memoryMiB;
  return (kilobytes(nodes, pods) * msPerKbAtMeasured) / cpuSpeedup / 1000;
}

/** The least memory (MiB) at which the listing, with the margin, fits `timeoutSeconds`; undefined when even one vCPU is too slow. */
export function memoryForColdList(nodes: number, pods: number, timeoutSeconds: number): number | undefined {
  const atFullCpu = coldListSeconds(nodes, pods, FULL_VCPU_MIB) * COLD_LIST_MARGIN;
  if (atFullCpu >= timeoutSeconds) return undefined;
  return Math.ceil((FULL_VCPU_MIB * atFullCpu) / timeoutSeconds / 64) * 64;
}
