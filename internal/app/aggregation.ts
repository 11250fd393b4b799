/**
 * Start-up step: the aggregation layer's APIService index (http/aggregator.ts), with the front-proxy
 * client pair it and the availability controller present to backends (--proxy-client-cert-file,
 * --proxy-client-key-file). As kube's dynamic cert-key content, the files are watched: a rotated
 * pair that loads (a matching certificate and key) replaces the old one, a bad one is logged and
 * the old pair kept.
 */
import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import { createSecureContext } from 'node:tls';
import type pino from 'pino';
import type { Storage } from '../storage/storage.ts';
import { APIServiceIndex, type ProxyClientCert } from '../http/aggregator.ts';
import type { ServerOptions } from './options.ts';

/** How often the pair's files are checked for changes. */
const POLL_MS = 1000;

/** Read and check the pair (throws when the files are unreadable or the key does not match). */
function readPair(certFile: string, keyFile: string): ProxyClientCert {
  const pair = { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
  createSecureContext(pair);
  return pair;
}

export interface Aggregator {
  index: APIServiceIndex;
  stop(): void;
}

export async function startAggregator(opts: ServerOptions, storage: Storage, log: pino.Logger): Promise<Aggregator> {
  const { proxyClientCertFile: certFile, proxyClientKeyFile: keyFile } = opts;
  if (Boolean(certFile) !== Boolean(keyFile)) throw new Error('--proxy-client-cert-file and --proxy-client-key-file must be given together');
  const index = new APIServiceIndex(certFile && keyFile ? readPair(certFile, keyFile) : undefined);
  await index.start(storage);
  const files = certFile && keyFile ? [certFile, keyFile] : [];
  const poll = (): void => {
    try {
      const pair = readPair(certFile!, keyFile!);
      if (pair.cert === index.proxyClient?.cert && pair.key === index.proxyClient?.key) return;
      index.setProxyClient(pair);
      log.info({ certFile, keyFile }, 'proxy client certificate reloaded');
    } catch (err) {
      log.warn({ err, certFile, keyFile }, 'proxy client certificate not reloaded');
    }
  };
  for (const f of files) watchFile(f, { interval: POLL_MS, persistent: false }, poll);
  return {
    index,
    stop() {
      for (const f of files) unwatchFile(f, poll);
      index.stop();
    },
  };
}
