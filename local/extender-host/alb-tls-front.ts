// The ALB's HTTPS listener with mutual TLS in verify mode, for the local
// ALB adapter. On AWS the ALB's own fleet terminates TLS and verifies client
// certificates, never the Lambda: so here a child process does it, and a
// flood of refused handshakes costs the process that stands in for the ALB,
// not the event loop that runs the handler. A verified request is passed to
// the adapter's plain listener on loopback with the headers the ALB adds
// (`x-amzn-mtls-clientcert-*`); a failed handshake reaches nothing.
import { spawn } from 'node:child_process';

export interface TlsFrontOptions {
  readonly certificatePem: string;
  readonly privateKeyPem: string;
  readonly clientCaBundle: string;
  /** The adapter's plain listener on 127.0.0.1. */
  readonly upstreamPort: number;
  /** Port to listen on (0: a free one). */
  readonly port: number;
  readonly onRefusedHandshake: () => void;
}

export interface TlsFront {
  readonly port: number;
  stop(): Promise<void>;
}

// Plain JavaScript run with \`node -e\`: no TypeScript loader needed.
const FRONT_SOURCE = `
const workerData = JSON.parse(process.env.ALB_TLS_FRONT);
const parentPort = { postMessage: (message) => process.send(message) };
const https = require('node:https');
const http = require('node:http');
const { certificatePem, privateKeyPem, clientCaBundle, upstreamPort, port } = workerData;
const agent = new http.Agent({ keepAlive: true });
const server = https.createServer(
  { cert: certificatePem, key: privateKeyPem, ca: clientCaBundle, requestCert: true, rejectUnauthorized: true, minVersion: 'TLSv1.2' },
  (req, res) => {
    const peer = req.socket.getPeerCertificate();
    const headers = { ...req.headers, 'x-forwarded-proto': 'https', 'x-forwarded-port': String(req.socket.localPort),
      'x-amzn-mtls-clientcert-serial-number': peer.serialNumber,
      'x-amzn-mtls-clientcert-subject': 'CN=' + peer.subject.CN,
      'x-amzn-mtls-clientcert-issuer': 'CN=' + peer.issuer.CN,
      'x-amzn-mtls-clientcert-validity': 'NotBefore=' + new Date(peer.valid_from).toISOString() + ';NotAfter=' + new Date(peer.valid_to).toISOString() };
    const upstream = http.request({ host: '127.0.0.1', port: upstreamPort, method: req.method, path: req.url, headers, agent }, (answer) => {
      res.writeHead(answer.statusCode, answer.statusMessage, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  },
);
const sockets = new Set();
server.on('connection', (socket) => { sockets.add(socket); socket.once('close', () => sockets.delete(socket)); });
server.on('tlsClientError', (_error, socket) => { parentPort.postMessage({ refused: 1 }); socket.destroy(); });
server.once('error', (error) => parentPort.postMessage({ error: error.message }));
server.listen(port, '127.0.0.1', () => parentPort.postMessage({ listening: server.address().port }));
process.on('message', () => {
  for (const socket of sockets) socket.destroy();
  agent.destroy();
  server.close(() => { parentPort.postMessage({ stopped: true }); process.exit(0); });
});
process.on('disconnect', () => process.exit(0));
`;

interface FrontMessage {
  listening?: number;
  refused?: number;
  error?: string;
  stopped?: boolean;
}

export function startTlsFront(options: TlsFrontOptions): Promise<TlsFront> {
  const { onRefusedHandshake, ...frontData } = options;
  const child = spawn(process.execPath, ['-e', FRONT_SOURCE], {
    env: { ...process.env, ALB_TLS_FRONT: JSON.stringify(frontData) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // Ends with the adapter's process, even when that one is killed.
  const killChild = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killChild);
  return new Promise((resolve, reject) => {
    let stopped: (() => void) | undefined;
    child.on('error', reject);
    child.once('exit', (code: number | null) => {
      process.off('exit', killChild);
      stopped?.();
      reject(new Error(`the ALB adapter's TLS listener exited (code ${String(code)})`));
    });
    child.on('message', (message: FrontMessage) => {
      if (message.refused) onRefusedHandshake();
      else if (message.error !== undefined) reject(new Error(`the ALB adapter's TLS listener failed: ${message.error}`));
      else if (message.stopped) stopped?.();
      else if (message.listening !== undefined) {
        const port = message.listening;
        resolve({
          port,
          stop: async () => {
            // Gone already, e.g. Ctrl-C signalled the whole process group: a signal leaves exitCode null.
            if (child.exitCode !== null || child.signalCode !== null || !child.connected) return;
            await new Promise<void>((done) => {
              stopped = done;
              child.send('stop', (error) => {
                if (error) done();
              });
            });
          },
        });
      }
    });
  });
}
