import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chooseDevices } from '../../../../../lambdas/scheduling/device-choice';
import { createFragmentationScore, LOOKAHEAD_WEIGHT, SHAPE_COVERAGE } from '../../../../../lambdas/scheduling/plugins/fragmentation';
import { Profile } from '../../../../../lambdas/scheduling/profile';
import { Snapshot } from '../../../../../lambdas/scheduling/snapshot';
import { cycle, nodeWithFree, pod, scoresOf } from './harness';

const GIB = 2 ** 30;

describe('Fragmentation score (FGD)', () => {
  // Workload: half 0.5-GPU pods, half whole-GPU pods.
  const shapes = [
    { cpuMilli: 1000, gpuCount: 1, gpuMilli: 500, weight: 1 },
    { cpuMilli: 1000, gpuCount: 1, gpuMilli: 1000, weight: 1 },
  ];

  it('prefers the device and node where the share does not break a whole GPU', () => {
    // A 0.5 share: on the half-used GPU it fills it exactly (fragment shrinks); on a whole GPU it strands half of it for whole-GPU pods.
    const plugin = createFragmentationScore({ shapes });
    const nodes = [nodeWithFree('fresh', [1000, 1000]), nodeWithFree('half', [1000, 500])];
    const share = pod({ gpuCount: 1, gpuMilli: 500 });
    const scores = scoresOf(plugin, nodes, share);
    expect(scores.half).toBeGreaterThan(scores.fresh ?? 100);
    const { profile, state } = cycle(plugin, nodes, share);
    const half = nodes[1];
    expect(half && chooseDevices(profile, state, half)).toEqual([1]);
  });

  it('counts a model the shape cannot use as fragment', () => {
    const picky = [{ cpuMilli: 1000, gpuCount: 1, gpuMilli: 1000, gpuModels: ['A100'], weight: 1 }];
    const plugin = createFragmentationScore({ shapes: picky });
    // Whole-GPU pod: on the A100 node it uses GPU the workload wants; on the T4 node it uses GPU nobody wants (reduces fragment).
    const nodes = [nodeWithFree('a100', [1000, 1000], { gpuModel: 'A100' }), nodeWithFree('t4', [1000, 1000], { gpuModel: 'T4' })];
    const scores = scoresOf(plugin, nodes, pod({ gpuCount: 1, gpuMilli: 1000 }));
    expect(scores.t4).toBeGreaterThan(scores.a100 ?? 100);
  });

  it('treats a node short of CPU for the workload as fragmented', () => {
    const cpuHungry = [{ cpuMilli: 32_000, gpuCount: 1, gpuMilli: 1000, weight: 1 }];
    const plugin = createFragmentationScore({ shapes: cpuHungry });
    // A CPU-only pod that leaves too little CPU for the workload strands the node's GPUs.
    const nodes = [nodeWithFree('roomy', [1000], { cpuMilli: 128_000 }), nodeWithFree('tight', [1000], { cpuMilli: 40_000 })];
    const scores = scoresOf(plugin, nodes, pod({ gpuCount: 0, cpuMilli: 16_000 }));
    expect(scores.roomy).toBeGreaterThan(scores.tight ?? 100);
  });

  it('treats a node short of memory for the workload as fragmented', () => {
    const memoryHungry = [{ cpuMilli: 1000, gpuCount: 1, gpuMilli: 1000, memoryBytes: 64 * GIB, weight: 1 }];
    // A CPU-only pod of 32 GiB: on the tight node (80 GiB) it leaves 48 GiB, too little for the workload's
    // 64 GiB, so both free GPUs strand there; the roomy node (512 GiB) can still host it.
    const nodes = () => [nodeWithFree('roomy', [1000, 1000], { memoryBytes: 512 * GIB }), nodeWithFree('tight', [1000, 1000], { memoryBytes: 80 * GIB })];
    const memoryPod = pod({ gpuCount: 0, cpuMilli: 1000, memoryBytes: 32 * GIB });
    for (const lookahead of [0, LOOKAHEAD_WEIGHT, 1]) {
      const scores = scoresOf(createFragmentationScore({ shapes: memoryHungry, lookahead }), nodes(), memoryPod);
      expect(scores.roomy, `lookahead ${lookahead}`).toBeGreaterThan(scores.tight ?? 100);
    }
    // Without memory in the shapes (the paper's CPU-and-GPU shapes) the two nodes look the same.
    const cpuOnly = [{ cpuMilli: 1000, gpuCount: 1, gpuMilli: 1000, weight: 1 }];
    const blind = scoresOf(createFragmentationScore({ shapes: cpuOnly }), nodes(), memoryPod);
    expect(blind.roomy).toBe(blind.tight);
  });

  it('learns each shape\'s memory from the bound pods: the least any of them asks', () => {
    // Bound whole-GPU pods of 1 core ask 40 and 60 GiB: the shape's memory is 40 GiB. A 30 GiB CPU-only pod
    // leaves the 100 GiB node 70 GiB (room for 40) and the 64 GiB node 34 GiB (not).
    const nodes = [nodeWithFree('big', [1000, 1000], { memoryBytes: 100 * GIB }), nodeWithFree('small', [1000, 1000], { memoryBytes: 64 * GIB })];
    const history = nodeWithFree('history', [1000, 1000, 1000, 1000], { memoryBytes: 1024 * GIB });
    const snapshot = new Snapshot([...nodes, history]);
    [40, 60, 40].forEach((gib, device) =>
      snapshot.bind({ uid: `h${device}`, namespace: 'default', name: `h${device}`, labels: {}, nodeName: 'history', demand: { cpuMilli: 1000, memoryBytes: gib * GIB, gpuCount: 1, gpuMilli: 1000 } }, [device]),
    );
    const plugin = createFragmentationScore();
    const profile = new Profile({ name: 't', filters: [], scorers: [{ plugin, weight: 1 }] });
    const memoryPod = pod({ gpuCount: 0, cpuMilli: 1000, memoryBytes: 30 * GIB });
    const [big, small] = Array.from(profile.score(profile.startCycle(snapshot, memoryPod), nodes));
    expect(big).toBeGreaterThan(small ?? 100);
  });

  it('learns from the shapes that cover 85 % of the bound GPU pods, so a shape of one pod in ten is left out', () => {
    expect(SHAPE_COVERAGE).toBe(0.85);
    // Nine whole-GPU pods and one half-GPU pod bound: at 85 % the half share is not a shape, at 95 % it is.
    const scoresWith = (options: { coverage?: number }) => {
      const nodes = [nodeWithFree('half', [500]), nodeWithFree('whole', [1000]), nodeWithFree('history', Array.from({ length: 8 }, () => 1000))];
      const snapshot = new Snapshot(nodes);
      Array.from({ length: 10 }, (_, i) => i).forEach((i) =>
        snapshot.bind(
          { uid: `h${i}`, namespace: 'default', name: `h${i}`, labels: {}, nodeName: 'history', demand: { cpuMilli: 1000, memoryBytes: 0, gpuCount: 1, gpuMilli: i === 0 ? 500 : 1000 } },
          [Math.min(i, 7)],
        ),
      );
      const profile = new Profile({ name: 't', filters: [], scorers: [{ plugin: createFragmentationScore(options), weight: 1 }] });
      return Array.from(profile.score(profile.startCycle(snapshot, pod({ gpuCount: 1, gpuMilli: 500 })), nodes.slice(0, 2)));
    };
    expect(scoresWith({})).toEqual(scoresWith({ coverage: SHAPE_COVERAGE }));
    expect(scoresWith({})).not.toEqual(scoresWith({ coverage: 0.95 }));
  });

  it('derives the shapes from the pods bound in the snapshot when none are given, and notices node changes', () => {
    const plugin = createFragmentationScore();
    const nodes = [nodeWithFree('fresh', [1000, 1000]), nodeWithFree('other', [1000, 1000])];
    const snapshot = new Snapshot(nodes);
    const bind = (name: string, nodeName: string, gpuMilli: number, device: number) =>
      snapshot.bind({ uid: name, namespace: 'default', name, labels: {}, nodeName, demand: { cpuMilli: 1000, memoryBytes: 0, gpuCount: 1, gpuMilli } }, [device]);
    // The cluster runs 0.5 shares and whole GPUs; 'other' has one device half used.
    bind('share', 'other', 500, 1);
    bind('whole', 'fresh', 1000, 0);
    const profile = new Profile({ name: 't', filters: [], scorers: [{ plugin, weight: 1 }] });
    const share = pod({ gpuCount: 1, gpuMilli: 500 });
    const score = () => Array.from(profile.score(profile.startCycle(snapshot, share), nodes));
    const [fresh, other] = score();
    // fresh has one whole GPU left (a share there breaks it); other can take the share on its half device.
    expect(other).toBeGreaterThan(fresh ?? 100);
    bind('fill', 'other', 500, 1);
    const [, otherAfter] = score();
    expect(otherAfter).toBeLessThan(other ?? 0);
  });

  it('notices an unbind: a node memo filled while a pod was bound is not reused after it left', () => {
    const plugin = createFragmentationScore({ shapes });
    const nodes = [nodeWithFree('a', [1000, 1000]), nodeWithFree('b', [1000, 1000])];
    const snapshot = new Snapshot(nodes);
    const profile = new Profile({ name: 't', filters: [], scorers: [{ plugin, weight: 1 }] });
    const share = pod({ gpuCount: 1, gpuMilli: 500 });
    const score = () => Array.from(profile.score(profile.startCycle(snapshot, share), nodes));
    const empty = score();
    snapshot.bind({ uid: 'half', namespace: 'default', name: 'half', labels: {}, nodeName: 'b', demand: { cpuMilli: 1000, memoryBytes: 0, gpuCount: 1, gpuMilli: 500 } }, [1]);
    const bound = score();
    expect(bound[1]).toBeGreaterThan(bound[0] ?? 100);
    expect(nodes[1]?.removePod('half')).toBe(true);
    // Back to the empty node's state: a memo kept from the bound state would still prefer b.
    expect(score()).toEqual(empty);
  });

  it('learns shapes from GPU pods only, so many CPU-only pods do not flatten GPU packing', () => {
    const plugin = createFragmentationScore();
    const big = nodeWithFree('big', Array.from({ length: 8 }, () => 0));
    const partly = nodeWithFree('partly', [0, 0, 0, 0, 1000, 1000, 1000, 1000]);
    const empty = nodeWithFree('empty', Array.from({ length: 8 }, () => 1000));
    const snapshot = new Snapshot([big, partly, empty]);
    let uid = 0;
    const bind = (nodeName: string, gpuCount: number, devices: number[]) => {
      uid++;
      snapshot.bind({ uid: `p${uid}`, namespace: 'default', name: `p${uid}`, labels: {}, nodeName, demand: { cpuMilli: 500, memoryBytes: 0, gpuCount, gpuMilli: gpuCount > 0 ? 1000 : 0 } }, devices);
    };
    // The GPU workload: one 8-GPU training job and four 1-GPU pods...
    bind('big', 8, [0, 1, 2, 3, 4, 5, 6, 7]);
    for (let d = 0; d < 4; d++) bind('partly', 1, [d]);
    // ...among forty CPU-only pods (daemons, web services), as in any real cluster.
    for (let i = 0; i < 40; i++) bind(i % 2 === 0 ? 'partly' : 'empty', 0, []);
    const profile = new Profile({ name: 't', filters: [], scorers: [{ plugin, weight: 1 }] });
    const [onPartly, onEmpty] = Array.from(profile.score(profile.startCycle(snapshot, pod({ gpuCount: 1, gpuMilli: 1000 })), [partly, empty]));
    // A 1-GPU pod on the empty node would leave no node able to take another 8-GPU job.
    expect(onPartly).toBeGreaterThan(onEmpty ?? 100);
  });

  it('on shared nodes, with only replicas in the workload: fills a shared GPU, then a GPU of a node in use, then an untouched node', () => {
    // Time-slicing, 4 replicas: each sharer is a 250/1000 share. The workload is sharers only, so FGD alone ties everywhere.
    const plugin = createFragmentationScore({ shapes: [{ cpuMilli: 0, gpuCount: 1, gpuMilli: 250, weight: 1 }] });
    const sharing = { gpuSharing: { strategy: 'time-slicing', replicas: 4, resource: 'nvidia.com/gpu' } } as const;
    // nodeWithFree loads a device with one pod, which is one replica here: device 0 of gpu-full takes four.
    const gpuFull = nodeWithFree('gpu-full', [750, 1000, 1000, 1000], sharing);
    for (let i = 1; i < 4; i++) gpuFull.addPod({ uid: `r${i}`, namespace: 'default', name: `r${i}`, labels: {}, nodeName: 'gpu-full', demand: { cpuMilli: 0, memoryBytes: 0, gpuCount: 1, gpuMilli: 1000 } }, [0]);
    const nodes = [nodeWithFree('untouched', [1000, 1000, 1000, 1000], sharing), gpuFull, nodeWithFree('gpu-shared', [750, 1000, 1000, 1000], sharing)];
    expect([...gpuFull.devices]).toEqual([0, 1000, 1000, 1000]);
    const sharer = pod({ gpuCount: 1, gpuMilli: 250 });
    const scores = scoresOf(plugin, nodes, sharer);
    expect(scores['gpu-shared']).toBeGreaterThan(scores['gpu-full'] ?? 100);
    expect(scores['gpu-full']).toBeGreaterThan(scores.untouched ?? 100);
    // On the node, the share goes to the GPU already shared.
    const { profile, state } = cycle(plugin, nodes, sharer);
    const shared = nodes[2];
    expect(shared && chooseDevices(profile, state, shared)).toEqual([0]);
    // Without device-plugin sharing a node in use is no better than an untouched one (no node-in-use term there).
    const plain = [nodeWithFree('untouched', [1000, 1000, 1000, 1000]), nodeWithFree('gpu-full', [0, 1000, 1000, 1000])];
    const plainScores = scoresOf(plugin, plain, sharer);
    expect(plainScores.untouched).toBe(plainScores['gpu-full']);
  });

  it('on unshared nodes, among devices and nodes the fragment scores alike, a share goes to the partly used GPU', () => {
    // Quarter shares only: every free share fills exactly, so FGD and the filled view tie everywhere.
    const quarters = [{ cpuMilli: 0, gpuCount: 1, gpuMilli: 250, weight: 1 }];
    const nodes = [nodeWithFree('untouched', [1000, 1000]), nodeWithFree('partly', [1000, 500])];
    const quarter = pod({ gpuCount: 1, gpuMilli: 250 });
    const scores = scoresOf(createFragmentationScore({ shapes: quarters }), nodes, quarter);
    expect(scores.partly).toBeGreaterThan(scores.untouched ?? 100);
    const { profile, state } = cycle(createFragmentationScore({ shapes: quarters }), nodes, quarter);
    const partly = nodes[1];
    expect(partly && chooseDevices(profile, state, partly)).toEqual([1]);
    // With partialGpuWeight 0 (the score before this term) the two nodes tie.
    const off = scoresOf(createFragmentationScore({ shapes: quarters, partialGpuWeight: 0 }), nodes, quarter);
    expect(off.partly).toBe(off.untouched);
    expect(() => createFragmentationScore({ partialGpuWeight: 2 })).toThrow(RangeError);
  });
});

describe('Fragmentation lookahead (the filled-node view)', () => {
  // Shares of 320, 470 and 810 and whole GPUs (twice as frequent).
  const shapes = [
    { cpuMilli: 1000, gpuCount: 1, gpuMilli: 320, weight: 1 },
    { cpuMilli: 1000, gpuCount: 1, gpuMilli: 470, weight: 1 },
    { cpuMilli: 1000, gpuCount: 1, gpuMilli: 810, weight: 1 },
    { cpuMilli: 1000, gpuCount: 1, gpuMilli: 1000, weight: 2 },
  ];
  const nodes = () => [nodeWithFree('tight', [350]), nodeWithFree('roomy', [700])];
  const share = pod({ gpuCount: 1, gpuMilli: 320 });

  it('FGD alone takes the tight fit; the filled-node view sees that 700 would likely get a 470 and strand 230, and 380 still takes a 320', () => {
    const fgd = scoresOf(createFragmentationScore({ shapes, lookahead: 0 }), nodes(), share);
    expect(fgd.tight).toBeGreaterThan(fgd.roomy ?? 100);
    const filled = scoresOf(createFragmentationScore({ shapes, lookahead: 1 }), nodes(), share);
    expect(filled.roomy).toBeGreaterThan(filled.tight ?? 100);
  });

  it('counts the GPU a node cannot feed once its CPU runs out, where FGD sees no change', () => {
    // Whole-GPU pods with 16 cores each. A CPU-only pod of 4 cores: the roomy node can still feed all four GPUs after it;
    // the tight one (20 cores) could feed 1.25 GPUs' worth before and 1 after, so 250 milli more go idle there.
    const hungry = [{ cpuMilli: 16_000, gpuCount: 1, gpuMilli: 1000, weight: 1 }];
    const hosts = () => [nodeWithFree('roomy', [1000, 1000, 1000, 1000], { cpuMilli: 128_000 }), nodeWithFree('tight', [1000, 1000, 1000, 1000], { cpuMilli: 20_000 })];
    const cpuPod = pod({ gpuCount: 0, cpuMilli: 4000 });
    const fgd = scoresOf(createFragmentationScore({ shapes: hungry, lookahead: 0 }), hosts(), cpuPod);
    expect(fgd.roomy).toBe(fgd.tight);
    const filled = scoresOf(createFragmentationScore({ shapes: hungry, lookahead: 1 }), hosts(), cpuPod);
    expect(filled.roomy).toBeGreaterThan(filled.tight ?? 100);
  });

  it('leaves multi-GPU shapes to the hostability test at any blend: 7 free GPUs are not fillable by 4-GPU pods device by device', () => {
    // Only 4- and 8-GPU jobs bound so far. A 1-GPU pod on the node with 4 free strands those 3 for the 4-GPU
    // shape; on the empty node it strands the 8-GPU shape's room: FGD packs it onto the node in use. The
    // filled view speaks for one-device shapes only (it used to call both nodes the same here, and before
    // that to prefer the empty node, taking its 7 left as fillable by 4-GPU pods), and with no one-device
    // shape FGD's view is all of the blend: every blend scores as FGD does, the default included.
    const jobs = [
      { cpuMilli: 0, gpuCount: 4, gpuMilli: 1000, weight: 1 },
      { cpuMilli: 0, gpuCount: 8, gpuMilli: 1000, weight: 1 },
    ];
    const hosts = () => [nodeWithFree('empty', Array.from({ length: 8 }, () => 1000)), nodeWithFree('busy', [1000, 1000, 1000, 1000, 0, 0, 0, 0])];
    const single = pod({ gpuCount: 1, gpuMilli: 1000 });
    const fgd = scoresOf(createFragmentationScore({ shapes: jobs, lookahead: 0 }), hosts(), single);
    expect(fgd.busy).toBeGreaterThan(fgd.empty ?? 100);
    for (const lookahead of [0.5, LOOKAHEAD_WEIGHT, 1]) {
      expect(scoresOf(createFragmentationScore({ shapes: jobs, lookahead }), hosts(), single), `lookahead ${lookahead}`).toEqual(fgd);
    }
  });

  it('defaults to the filled-node view alone for the one-device shapes', () => {
    expect(LOOKAHEAD_WEIGHT).toBe(1);
    const blend = scoresOf(createFragmentationScore({ shapes, lookahead: LOOKAHEAD_WEIGHT }), nodes(), share);
    expect(scoresOf(createFragmentationScore({ shapes }), nodes(), share)).toEqual(blend);
    expect(scoresOf(createFragmentationScore({ shapes, lookahead: 0 }), nodes(), share)).not.toEqual(blend);
  });

  it('rejects a weight outside 0..1', () => {
    expect(() => createFragmentationScore({ lookahead: 1.5 })).toThrow(/lookahead must be in 0\.\.1/);
    expect(() => createFragmentationScore({ lookahead: Number.NaN })).toThrow(RangeError);
  });
});

describe('FragmentationScore memo', () => {
  const anyShape = fc.record({
    gpuCount: fc.integer({ min: 0, max: 2 }),
    gpuMilli: fc.constantFrom(250, 500, 1000),
    cpuMilli: fc.constantFrom(1000, 8000),
    // Up to most of a node's 256 GiB: the same CPU and GPU with another memory is another score.
    memoryBytes: fc.constantFrom(0, 16 * GIB, 200 * GIB),
  });

  it('answers, for any sequence of pod shapes and binds, what a plugin scoring each pod for the first time answers', () => {
    const fixed = [
      { cpuMilli: 1000, gpuCount: 1, gpuMilli: 500, memoryBytes: 8 * GIB, weight: 0.5 },
      { cpuMilli: 4000, gpuCount: 1, gpuMilli: 1000, memoryBytes: 64 * GIB, weight: 0.3 },
      { cpuMilli: 8000, gpuCount: 2, gpuMilli: 1000, weight: 0.2 },
    ];
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom(250, 500, 750, 1000), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.record({ shape: anyShape, bind: fc.boolean() }), { minLength: 1, maxLength: 12 }),
        (frees, steps) => {
          const nodes = frees.map((free, i) => nodeWithFree(`n${i}`, free));
          const snapshot = new Snapshot(nodes);
          // One plugin lives through every step (its memo fills and switches shapes); the other is new each time.
          const kept = createFragmentationScore({ shapes: fixed });
          const profileOf = (plugin: ReturnType<typeof createFragmentationScore>) => new Profile({ name: 't', filters: [], scorers: [{ plugin, weight: 1 }] });
          const keptProfile = profileOf(kept);
          steps.forEach(({ shape, bind }, step) => {
            const requirements = pod(shape);
            const fresh = createFragmentationScore({ shapes: fixed });
            const keptState = keptProfile.startCycle(snapshot, requirements);
            const freshState = profileOf(fresh).startCycle(snapshot, requirements);
            expect(Array.from(keptProfile.score(keptState, nodes))).toEqual(Array.from(profileOf(fresh).score(freshState, nodes)));
            for (const node of nodes) expect(kept.chooseDevices(keptState, requirements, node)).toEqual(fresh.chooseDevices(freshState, requirements, node));
            const target = nodes[step % nodes.length];
            if (bind && target !== undefined && shape.gpuCount > 0 && target.fitsGpus(shape.gpuCount, shape.gpuMilli)) {
              const devices = kept.chooseDevices(keptState, requirements, target);
              snapshot.bind({ uid: `s${step}`, namespace: 'default', name: `s${step}`, labels: {}, nodeName: target.name, demand: shape }, devices);
            }
          });
        },
      ),
      { numRuns: 200 },
    );
  });
});
