// The scale section's rows of the bench table, with their targets.
import type { BenchRow } from './report-table';
import { count, mib, ms } from './report-table';
import type { ScaleResult } from './scale-bench';
import type { ProxyCounts } from '../../local/proxies/kube-api-proxy';
import { LAMBDA_MB_PER_VCPU } from './cpu-quota';

/** "Well inside" kube-scheduler's httpTimeout: at most this share of it. */
export const COLD_SHARE_TARGET = 0.5;
/**
 * Refresh cost proportional to what changed: bytes read per pod created or
 * deleted at most this many times one pod's share of a full listing. A full
 * re-list every TTL costs hundreds of times that at 10,000 pods; a watch, one
 * or two events per change.
 */
export const BYTES_PER_CHANGE_TARGET = 10;

const MiB = 1024 * 1024;

/** "LIST /api/v1/pods 5 (412 ms each)", busiest first; counts scaled by `perMinute`. */
function callList({ calls, openMs }: ProxyCounts, perMinute = 1): string {
  return Object.entries(calls)
    .sort((a, b) => b[1] - a[1])
    .map(([key, n]) => `${key} ${perMinute === 1 ? n : (n * perMinute).toFixed(0)} (${ms((openMs[key] ?? 0) / n)} each)`)
    .join(', ');
}

function failures({ failed }: ProxyCounts): string {
  const entries = Object.entries(failed);
  return entries.length === 0 ? '' : `; not 2xx: ${entries.map(([key, n]) => `${key} × ${n}`).join(', ')}`;
}

const totalCalls = (calls: ProxyCounts['calls']): number => Object.values(calls).reduce((a, b) => a + b, 0);

export function scaleRows(r: ScaleResult): BenchRow[] {
  const section = `Extender at scale (kube-apiserver, ${count(r.nodes)} nodes / ${count(r.pods)} pods, ${r.commit}${r.uncommitted.length > 0 ? ' + uncommitted' : ''}${r.vcpu === undefined ? '' : `, containers at ${r.vcpu} vCPU ≈ a ${Math.round(r.vcpu * LAMBDA_MB_PER_VCPU)} MB Lambda`})`;
  const timeoutMs = r.httpTimeoutSeconds * 1000;
  const coldMs = r.cold.initMs + r.cold.firstFilterMs;
  const share = coldMs / timeoutMs;
  const perMinute = 60_000 / r.warm.elapsedMs;
  const changes = r.warm.scheduled + r.warm.deleted;
  const listingBytesPerPod = r.cold.api.responseBytes / (r.pods + r.nodes);
  const bytesPerChange = changes > 0 ? r.warm.api.responseBytes / changes : 0;
  return [
    {
      section,
      measurement: 'cold container: init + first NodeNames /filter',
      value: `${ms(coldMs)} = ${(share * 100).toFixed(0)} % of httpTimeout ${r.httpTimeoutSeconds} s (init ${ms(r.cold.initMs)}, /filter ${ms(r.cold.firstFilterMs)}; ${r.cold.keptNodes} nodes kept)`,
      target: `≤ ${COLD_SHARE_TARGET * 100} % of httpTimeout`,
      ok: share <= COLD_SHARE_TARGET,
    },
    {
      section,
      measurement: 'second cold container through the counting proxy: first /filter',
      value: ms(r.cold.viaProxyFirstFilterMs),
    },
    {
      section,
      measurement: 'cold container: read from the API server (counted by the proxy)',
      value: `${mib(r.cold.api.responseBytes / MiB)} of responses (${mib(r.cold.api.wireBytes / MiB)} on the wire) in ${totalCalls(r.cold.api.calls)} calls: ${callList(r.cold.api)}${failures(r.cold.api)}`,
    },
    {
      section,
      measurement: `warm container, ${r.warm.ratePerSecond} pods/s scheduled + deleted for ${(r.warm.elapsedMs / 1000).toFixed(0)} s: API calls per minute`,
      value: `${(totalCalls(r.warm.api.calls) * perMinute).toFixed(0)}: ${callList(r.warm.api, perMinute)}${failures(r.warm.api)}`,
    },
    {
      section,
      measurement: 'warm container: bytes read per minute',
      value: `${mib((r.warm.api.responseBytes * perMinute) / MiB)} (${mib((r.warm.api.wireBytes * perMinute) / MiB)} on the wire) = ${((r.warm.api.responseBytes * perMinute) / r.cold.api.responseBytes).toFixed(2)} full listings`,
    },
    {
      section,
      measurement: 'warm container: bytes read per pod created or deleted',
      value: `${(bytesPerChange / 1024).toFixed(1)} KiB = ${(bytesPerChange / listingBytesPerPod).toFixed(1)}× one object of the full listing (${count(changes)} changes)`,
      target: `≤ ${BYTES_PER_CHANGE_TARGET}× (proportional to what changed)`,
      ok: bytesPerChange <= BYTES_PER_CHANGE_TARGET * listingBytesPerPod,
    },
    {
      section,
      measurement: 'warm container: /filter over every node, as kube-scheduler called it',
      value: `median ${ms(r.warm.filterMs.median)}, p99 ${ms(r.warm.filterMs.p99)}, max ${ms(r.warm.filterMs.max)}; ${r.warm.scheduled} scheduled, ${r.warm.failedFilters} failed, ${r.warm.lateTicks} ticks late`,
      target: `max < httpTimeout ${r.httpTimeoutSeconds} s`,
      ok: r.warm.filterMs.max < timeoutMs && r.warm.failedFilters === 0,
    },
    {
      section,
      measurement: 'container peak RSS',
      value: `${mib(r.peakRssMiB)} (after the first answer ${mib(r.cold.stats.peakRssMiB)}; RSS at start ${mib(r.cold.readyRssMiB)})`,
      target: `≤ Lambda memorySizeMiB ${r.lambdaMemoryMiB}`,
      ok: r.peakRssMiB <= r.lambdaMemoryMiB,
    },
    {
      section,
      measurement: 'setup (not measured): control plane, nodes, bound pods',
      value: `${ms(r.setup.controlPlaneMs)}, ${ms(r.setup.nodesMs)}, ${ms(r.setup.podsMs)}`,
    },
  ];
}
