/**
 * Reader for the openb GPU cluster trace CSV format (Alibaba "Beware of
 * Fragmentation", USENIX ATC'23): one node list and one pod list.
 */

export interface TraceNode {
  readonly name: string;
  readonly cpuMilli: number;
  readonly memoryMiB: number;
  readonly gpuCount: number;
  /** GPU model, e.g. `T4`; empty for a CPU-only node. */
  readonly model: string;
}

export interface TracePod {
  readonly name: string;
  readonly cpuMilli: number;
  readonly memoryMiB: number;
  readonly numGpu: number;
  /** Share of one GPU per requested GPU, 1..1000 (1000 = whole GPU); 0 when numGpu is 0. */
  readonly gpuMilli: number;
  /** Allowed GPU models; empty = any model. */
  readonly gpuSpec: readonly string[];
}

export class TraceFormatError extends Error {
  constructor(source: string, line: number, message: string) {
    super(`${source}:${line}: ${message}`);
    this.name = 'TraceFormatError';
  }
}

interface CsvTable {
  readonly header: readonly string[];
  readonly rows: readonly { readonly line: number; readonly cells: readonly string[] }[];
}

// The trace has no quoted fields; a quote would mean a different format, so
// it is rejected rather than half-parsed.
function readTable(text: string, source: string): CsvTable {
  const lines = text.split(/\r?\n/);
  const headerLine = lines[0]?.trim() ?? '';
  if (headerLine === '') throw new TraceFormatError(source, 1, 'empty file (expected a CSV header)');
  const header = headerLine.split(',').map((h) => h.trim());
  const rows: { line: number; cells: string[] }[] = [];
  for (let i = 1; i < lines.length; i++) {
    const raw = lines[i] ?? '';
    if (raw.trim() === '') continue;
    if (raw.includes('"')) throw new TraceFormatError(source, i + 1, 'quoted fields are not supported');
    const cells = raw.split(',').map((c) => c.trim());
    if (cells.length !== header.length) {
      throw new TraceFormatError(source, i + 1, `expected ${header.length} fields, got ${cells.length}`);
    }
    rows.push({ line: i + 1, cells });
  }
  return { header, rows };
}

function columnIndex(table: CsvTable, name: string, source: string): number {
  const idx = table.header.indexOf(name);
  if (idx < 0) throw new TraceFormatError(source, 1, `missing column "${name}" (have: ${table.header.join(', ')})`);
  return idx;
}

function intCell(cells: readonly string[], idx: number, column: string, source: string, line: number, max: number): number {
  const raw = cells[idx] ?? '';
  if (!/^\d+$/.test(raw)) throw new TraceFormatError(source, line, `${column} must be a non-negative integer, got "${raw}"`);
  const value = Number(raw);
  if (value > max) throw new TraceFormatError(source, line, `${column} ${value} is above the limit ${max}`);
  return value;
}

const MAX_CPU_MILLI = 10_000_000;
const MAX_MEMORY_MIB = 1 << 30;
const MAX_GPUS = 1024;

export function parseNodeCsv(text: string, source = 'nodes.csv'): TraceNode[] {
  const table = readTable(text, source);
  const col = {
    name: columnIndex(table, 'sn', source),
    cpu: columnIndex(table, 'cpu_milli', source),
    mem: columnIndex(table, 'memory_mib', source),
    gpu: columnIndex(table, 'gpu', source),
    model: columnIndex(table, 'model', source),
  };
  const seen = new Set<string>();
  return table.rows.map(({ line, cells }) => {
    const name = cells[col.name] ?? '';
    if (name === '') throw new TraceFormatError(source, line, 'empty node name (sn)');
    if (seen.has(name)) throw new TraceFormatError(source, line, `duplicate node "${name}"`);
    seen.add(name);
    return {
      name,
      cpuMilli: intCell(cells, col.cpu, 'cpu_milli', source, line, MAX_CPU_MILLI),
      memoryMiB: intCell(cells, col.mem, 'memory_mib', source, line, MAX_MEMORY_MIB),
      gpuCount: intCell(cells, col.gpu, 'gpu', source, line, MAX_GPUS),
      model: cells[col.model] ?? '',
    };
  });
}

export function parsePodCsv(text: string, source = 'pods.csv'): TracePod[] {
  const table = readTable(text, source);
  const col = {
    name: columnIndex(table, 'name', source),
    cpu: columnIndex(table, 'cpu_milli', source),
    mem: columnIndex(table, 'memory_mib', source),
    numGpu: columnIndex(table, 'num_gpu', source),
    gpuMilli: columnIndex(table, 'gpu_milli', source),
    // The public multi-GPU pod lists (openb_pod_list_multigpu*.csv) have no
    // gpu_spec column: their pods take any model.
    spec: table.header.indexOf('gpu_spec'),
  };
  const seen = new Set<string>();
  return table.rows.map(({ line, cells }) => {
    const name = cells[col.name] ?? '';
    if (name === '') throw new TraceFormatError(source, line, 'empty pod name');
    if (seen.has(name)) throw new TraceFormatError(source, line, `duplicate pod "${name}"`);
    seen.add(name);
    const numGpu = intCell(cells, col.numGpu, 'num_gpu', source, line, MAX_GPUS);
    const gpuMilli = intCell(cells, col.gpuMilli, 'gpu_milli', source, line, 1000);
    if (numGpu > 0 && gpuMilli === 0) throw new TraceFormatError(source, line, 'num_gpu > 0 needs gpu_milli > 0');
    if (numGpu > 1 && gpuMilli !== 1000) {
      throw new TraceFormatError(source, line, `a pod with num_gpu ${numGpu} must ask whole GPUs (gpu_milli 1000), got ${gpuMilli}`);
    }
    return {
      name,
      cpuMilli: intCell(cells, col.cpu, 'cpu_milli', source, line, MAX_CPU_MILLI),
      memoryMiB: intCell(cells, col.mem, 'memory_mib', source, line, MAX_MEMORY_MIB),
      numGpu,
      gpuMilli: numGpu === 0 ? 0 : gpuMilli,
      gpuSpec: col.spec < 0 ? [] : (cells[col.spec] ?? '').split('|').filter((m) => m !== ''),
    };
  });
}
