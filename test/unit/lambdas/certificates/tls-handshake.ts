// A real TLS handshake on loopback: a server that requires a client
// certificate from `clientCaBundle`, and a client that trusts `serverCaBundle`.
import { createServer, connect, type TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';

export interface HandshakeInput {
  server: { certificatePem: string; privateKeyPem: string };
  clientCaBundle: string;
  serverCaBundle: string;
  client?: { certificatePem: string; privateKeyPem: string };
  servername?: string;
}

/** 'ok', or the error that ended the handshake (either side's). */
export async function handshake(input: HandshakeInput): Promise<string> {
  const server = createServer(
    { cert: input.server.certificatePem, key: input.server.privateKeyPem, ca: input.clientCaBundle, requestCert: true, rejectUnauthorized: true },
    (socket) => socket.end('hello'),
  );
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    return await new Promise<string>((resolve) => {
      const socket: TLSSocket = connect({
        host: '127.0.0.1',
        port,
        ca: input.serverCaBundle,
        servername: input.servername ?? 'localhost',
        ...(input.client ? { cert: input.client.certificatePem, key: input.client.privateKeyPem } : {}),
      });
      let data = '';
      socket.on('data', (chunk: Buffer) => (data += chunk.toString()));
      socket.on('error', (error) => resolve(error.message));
      socket.on('end', () => resolve(data === 'hello' ? 'ok' : `closed without an answer`));
    });
  } finally {
    server.close();
  }
}
