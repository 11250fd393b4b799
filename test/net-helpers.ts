/** Network fixtures for tests that need a reachable-but-closed address (a Node without a kubelet). */
import { createServer } from 'node:net';
import { networkInterfaces } from 'node:os';

/** This host's first non-loopback IPv4 address (kube refuses to proxy loopback). */
export const hostIP = (): string | undefined =>
  Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

/** A TCP port nothing listens on (bound, then closed). */
export const closedPort = (): Promise<number> =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '0.0.0.0', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
