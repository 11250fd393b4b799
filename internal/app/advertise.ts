/** The default --advertise-address, as kube-apiserver chooses it. */
import { networkInterfaces } from 'node:os';

/**
 * The bind address, unless it is unspecified (0.0.0.0 / ::): then, as kube-apiserver does with
 * the default-route interface, the first non-internal address of the host (IPv4 preferred), or
 * loopback when there is none.
 */
export function defaultAdvertiseAddress(bindAddress: string): string {
  if (bindAddress !== '0.0.0.0' && bindAddress !== '::' && bindAddress !== '') return bindAddress;
  const all = Object.values(networkInterfaces()).flatMap((l) => l ?? []).filter((a) => !a.internal);
  return all.find((a) => a.family === 'IPv4')?.address ?? all[0]?.address ?? '127.0.0.1';
}
