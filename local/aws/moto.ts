// moto_server: the local stand-in for EC2, CloudWatch, EKS, STS and EventBridge.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpGet } from '../common/http-probe';
import { startReadyProcess, type ManagedProcess } from '../common/managed-process';
import { freeLoopbackPort } from '../common/ports';
import { waitFor } from '../common/wait';
import { ensureMotoServer } from './moto-install';

export const LOCAL_AWS_REGION = 'us-east-1';
const DUMMY_CREDENTIALS = { accessKeyId: 'testing', secretAccessKey: 'testing' };

export interface MotoServer {
  url: string;
  /** undefined when the server was started by someone else (MOTO_URL). */
  process?: ManagedProcess;
  stop(): Promise<void>;
}

/** The config every AWS SDK v3 client in tests takes: `new EC2Client(awsClientConfig(url))`. */
export function awsClientConfig(motoUrl: string): {
  endpoint: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
} {
  return { endpoint: motoUrl, region: LOCAL_AWS_REGION, credentials: { ...DUMMY_CREDENTIALS } };
}

/** Environment for code that builds its own SDK clients (the Lambda handlers run in-process). */
export function awsEnvironment(motoUrl: string): Record<string, string> {
  return {
    AWS_ENDPOINT_URL: motoUrl,
    AWS_REGION: LOCAL_AWS_REGION,
    AWS_DEFAULT_REGION: LOCAL_AWS_REGION,
    AWS_ACCESS_KEY_ID: DUMMY_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: DUMMY_CREDENTIALS.secretAccessKey,
  };
}

const motoAnswers = async (url: string): Promise<boolean> => (await httpGet(`${url}/moto-api/`)).status < 500;

export async function waitForMoto(url: string, timeoutMs = 60_000): Promise<void> {
  await waitFor(`moto_server at ${url}`, async () => ((await motoAnswers(url)) ? true : undefined), { timeoutMs, intervalMs: 300 });
}

/**
 * Reuses the moto_server at $MOTO_URL when set (.ci/run starts one), otherwise
 * starts moto_server on a free loopback port: the one on PATH, or the pinned
 * one installed once into the cache (moto-install.ts). Without Python 3 it
 * is an error that says what to install.
 */
export async function startMoto(env: NodeJS.ProcessEnv = process.env, log: (message: string) => void = () => {}): Promise<MotoServer> {
  const existing = env.MOTO_URL;
  if (existing) {
    await waitForMoto(existing);
    return { url: existing, stop: async () => {} };
  }
  const moto = await ensureMotoServer(log, env);
  const port = await freeLoopbackPort();
  const url = `http://127.0.0.1:${port}`;
  const logDir = mkdtempSync(join(tmpdir(), 'eks-gpu-scheduling-moto-'));
  const proc = await startReadyProcess(
    {
      name: 'moto_server',
      command: moto.command,
      args: [...moto.args, '-H', '127.0.0.1', '-p', String(port)],
      env: { ...env, ...moto.env },
      logFile: join(logDir, 'moto_server.log'),
    },
    { what: `moto_server at ${url}`, probe: () => motoAnswers(url), intervalMs: 300 },
  );
  return {
    url,
    process: proc,
    stop: async () => {
      await proc.stop();
      rmSync(logDir, { recursive: true, force: true });
    },
  };
}
