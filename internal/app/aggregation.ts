/**
 * Start-up step: the aggregation layer's APIService index (http/aggregator.ts), with the front-proxy
 * client pair it and the availability controller present to backends (--proxy-client-cert-file,
 * --proxy-client-key-file; read once at start).
 */
import { readFileSync } from 'node:fs';
import type { Storage } from '../storage/storage.ts';
import { APIServiceIndex, type ProxyClientCert } from '../http/aggregator.ts';
import type { ServerOptions } from './options.ts';

function proxyClientCert(opts: ServerOptions): ProxyClientCert | undefined {
  const { proxyClientCertFile: certFile, proxyClientKeyFile: keyFile } = opts;
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile) throw new Error('--proxy-client-cert-file and --proxy-client-key-file must be given together');
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

export async function startAggregator(opts: ServerOptions, storage: Storage): Promise<APIServiceIndex> {
  const index = new APIServiceIndex(proxyClientCert(opts));
  await index.start(storage);
  return index;
}
