// `npx tsx local/up.ts` (suggested as `npm start`): the whole pipeline on this
// machine. moto_server, etcd, kube-apiserver, kube-controller-manager, a
// default kube-scheduler, the extender Lambda handler behind the local ALB
// adapter, and a gpu-scheduler kube-scheduler calling it. Optional demo GPU
// nodes. Ctrl-C stops everything.
//
// Environment: NODE_CACHE_CAPABLE=false to send full Node objects;
// DEMO_NODES=0 to start with an empty cluster.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { EC2Client } from '@aws-sdk/client-ec2';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { startAlbAdapter } from './alb-adapter';
import { ensureKubeBinaries } from './build-binaries';
import { startControlPlane } from './control-plane';
import { createGpuNode, describeInstanceType, seedGpuLabels } from './gpu-nodes';
import { startKubeScheduler } from './kube-scheduler';
import { awsClientConfig, awsEnvironment, startMoto } from './moto';
import { GPU_SCHEDULER_NAME } from './scheduler-config';

const DEMO_NODES: { instanceType: string; zone: string }[] = [
  { instanceType: 'p4d.24xlarge', zone: 'us-east-1a' },
  { instanceType: 'p5.48xlarge', zone: 'us-east-1b' },
  { instanceType: 'g5.12xlarge', zone: 'us-east-1a' },
  { instanceType: 'g5.xlarge', zone: 'us-east-1b' },
  { instanceType: 'g4dn.xlarge', zone: 'us-east-1c' },
  { instanceType: 't3.large', zone: 'us-east-1c' },
];

async function main(): Promise<void> {
  const binaries = await ensureKubeBinaries();
  const moto = await startMoto();
  const stops: (() => Promise<void>)[] = [() => moto.stop()];
  const stopAll = async (): Promise<void> => {
    for (const stop of stops.reverse()) await stop().catch((error: unknown) => console.error(error));
  };
  try {
    const controlPlane = await startControlPlane({ binaries });
    stops.push(() => controlPlane.stop());
    Object.assign(process.env, awsEnvironment(moto.url), { KUBECONFIG: controlPlane.info.lambdaKubeconfigs.extender });

    const { handler } = await import('../lambdas/extender/handler');
    const adapter = await startAlbAdapter({ handler, functionName: 'gpu-extender' });
    stops.push(() => adapter.stop());

    const schedulerDir = join(controlPlane.info.logDir, GPU_SCHEDULER_NAME);
    mkdirSync(schedulerDir, { recursive: true });
    const gpuScheduler = await startKubeScheduler({
      binary: binaries.path['kube-scheduler'],
      kubeconfig: controlPlane.info.schedulerKubeconfig,
      workDir: schedulerDir,
      name: GPU_SCHEDULER_NAME,
      profiles: [GPU_SCHEDULER_NAME],
      extender: {
        urlPrefix: adapter.url,
        nodeCacheCapable: process.env.NODE_CACHE_CAPABLE !== 'false',
        ignorable: false,
        weight: 5,
        preemptVerb: 'preempt',
      },
    });
    stops.push(() => gpuScheduler.stop());

    if (process.env.DEMO_NODES !== '0') {
      const admin = new KubeConfig();
      admin.loadFromFile(controlPlane.info.adminKubeconfig);
      const clients = { core: admin.makeApiClient(CoreV1Api), ec2: new EC2Client(awsClientConfig(moto.url)) };
      for (const spec of DEMO_NODES) {
        const facts = await describeInstanceType(clients.ec2, spec.instanceType);
        const node = await createGpuNode(clients, { ...spec, labels: seedGpuLabels(facts) });
        console.log(`[up] node ${node.name} (${spec.instanceType}, ${spec.zone}, ${facts.gpuCount} GPUs)`);
      }
    }

    console.log(`
Local pipeline is up (Kubernetes ${binaries.version}). In another shell:

  export KUBECONFIG=${controlPlane.info.adminKubeconfig}
  export AWS_ENDPOINT_URL=${moto.url} AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing

Pods with schedulerName: ${GPU_SCHEDULER_NAME} go through the extender at ${adapter.url} (ALB adapter).
Logs: ${controlPlane.info.logDir}
Ctrl-C stops everything.`);
  } catch (error) {
    await stopAll();
    throw error;
  }

  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  console.log('[up] stopping');
  await stopAll();
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
