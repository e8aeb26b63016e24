import { describe, expect, it } from 'vitest';
import { parseNodeCsv, parsePodCsv, TraceFormatError } from '../../../../bench/trace/trace-csv';

const NODES = `sn,cpu_milli,memory_mib,gpu,model
openb-node-0000,64000,262144,2,P100
openb-node-0001,96000,393216,8,G2
cpu-only,32000,131072,0,
`;

const PODS = `name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time
openb-pod-0000,12000,16384,1,1000,,LS,Running,0,12537496,0
openb-pod-0001,6000,12288,1,460,,LS,Running,427061,12902960,427061
openb-pod-0002,4000,8192,8,1000,V100M16|V100M32,BE,Running,1,2,1
openb-pod-0003,8000,4096,0,0,,BE,Failed,1,2,1
`;

describe('trace CSV', () => {
  it('reads nodes with CPU, memory, GPU count and model (empty model = CPU node)', () => {
    expect(parseNodeCsv(NODES)).toEqual([
      { name: 'openb-node-0000', cpuMilli: 64000, memoryMiB: 262144, gpuCount: 2, model: 'P100' },
      { name: 'openb-node-0001', cpuMilli: 96000, memoryMiB: 393216, gpuCount: 8, model: 'G2' },
      { name: 'cpu-only', cpuMilli: 32000, memoryMiB: 131072, gpuCount: 0, model: '' },
    ]);
  });

  it('reads pods: GPU count, share per GPU, allowed models split on |; CPU-only pods get gpuMilli 0', () => {
    const pods = parsePodCsv(PODS);
    expect(pods.map((p) => [p.name, p.numGpu, p.gpuMilli, p.gpuSpec])).toEqual([
      ['openb-pod-0000', 1, 1000, []],
      ['openb-pod-0001', 1, 460, []],
      ['openb-pod-0002', 8, 1000, ['V100M16', 'V100M32']],
      ['openb-pod-0003', 0, 0, []],
    ]);
    expect(pods[1]).toMatchObject({ cpuMilli: 6000, memoryMiB: 12288 });
  });

  it('reads a pod list without gpu_spec (the public multi-GPU lists): every pod takes any model', () => {
    const pods = parsePodCsv('name,cpu_milli,memory_mib,num_gpu,gpu_milli\nm0,4000,8192,8,1000\nm1,2000,4096,0,0\n');
    expect(pods.map((p) => [p.name, p.numGpu, p.gpuMilli, p.gpuSpec])).toEqual([
      ['m0', 8, 1000, []],
      ['m1', 0, 0, []],
    ]);
  });

  it('accepts CRLF line endings and a trailing blank line', () => {
    expect(parseNodeCsv(NODES.replace(/\n/g, '\r\n'))).toHaveLength(3);
  });

  it.each([
    ['a missing column', 'sn,cpu_milli,gpu,model\nn,1,1,T4\n', /missing column "memory_mib"/],
    ['a non-numeric value', 'sn,cpu_milli,memory_mib,gpu,model\nn,lots,1,1,T4\n', /:2: cpu_milli must be a non-negative integer, got "lots"/],
    ['a negative value', 'sn,cpu_milli,memory_mib,gpu,model\nn,1,1,-1,T4\n', /gpu must be a non-negative integer/],
    ['a short row', 'sn,cpu_milli,memory_mib,gpu,model\nn,1,1\n', /expected 5 fields, got 3/],
    ['a duplicate node', 'sn,cpu_milli,memory_mib,gpu,model\nn,1,1,1,T4\nn,1,1,1,T4\n', /:3: duplicate node "n"/],
    ['an empty file', '', /empty file/],
    ['quoted fields', 'sn,cpu_milli,memory_mib,gpu,model\n"n",1,1,1,T4\n', /quoted fields/],
  ])('rejects %s with the line and the reason', (_what, text, message) => {
    expect(() => parseNodeCsv(text, 'nodes.csv')).toThrow(TraceFormatError);
    expect(() => parseNodeCsv(text, 'nodes.csv')).toThrow(message);
  });

  it('rejects a multi-GPU pod that asks for a fraction of each GPU, and GPUs without a share', () => {
    const header = 'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n';
    expect(() => parsePodCsv(`${header}p,1,1,2,500,\n`)).toThrow(/num_gpu 2 must ask whole GPUs/);
    expect(() => parsePodCsv(`${header}p,1,1,1,0,\n`)).toThrow(/num_gpu > 0 needs gpu_milli > 0/);
    expect(() => parsePodCsv(`${header}p,1,1,1,1500,\n`)).toThrow(/gpu_milli 1500 is above the limit 1000/);
  });
});
