/**
 * Start-up step: open the storage the flags name — the embedded log, or a Kafka replica (which
 * first restores the newest checkpoint when it has no data) — with encryption at rest.
 */
import type pino from 'pino';
import { Storage } from '../storage/storage.ts';
import { restoreLatestCheckpoint } from '../storage/checkpoint.ts';
import type { LogInstruments } from '../storage/log/instruments.ts';
import { AtRest } from '../storage/encryption/at-rest.ts';
import type { Change } from '../storage/mvcc/materializer.ts';
import type { ServerOptions } from './options.ts';

export async function openStorage(opts: ServerOptions, log: pino.Logger, instruments: LogInstruments): Promise<Storage> {
  const where = opts.log ?? { kind: 'embedded' };
  // A bad file stops the start before anything is opened (kube's message names the file).
  const atRest = AtRest.fromFile(opts.encryptionProviderConfig);
  const onUndecryptable = (c: Change, err: Error): void => {
    // Never the value: only where it is and why it does not decrypt.
    log.error({ key: c.key, resourceVersion: c.offset, err: err.message }, 'committed change not decryptable with --encryption-provider-config; not delivered to watchers and controllers');
  };
  if (opts.follower) return Storage.openFollower({ dataDir: opts.dataDir, historyWindowMs: opts.historyWindowMs, link: opts.follower, atRest, onUndecryptable, logger: log });
  if (where.kind === 'embedded') return Storage.openEmbedded({ dataDir: opts.dataDir, historyWindowMs: opts.historyWindowMs, sync: opts.sync, instruments, atRest, onUndecryptable, logger: log });
  if (opts.checkpointDir) {
    const restored = await restoreLatestCheckpoint(opts.checkpointDir, opts.dataDir);
    if (restored) log.info(restored, 'bootstrapped the snapshot from a checkpoint');
  }
  return Storage.openKafka({
    dataDir: opts.dataDir,
    historyWindowMs: opts.historyWindowMs,
    brokers: where.brokers,
    topic: where.topic,
    replicationFactor: opts.kafkaReplicationFactor ?? 1,
    minInsyncReplicas: opts.kafkaMinInsyncReplicas ?? 1,
    checkpointsCover: Boolean(opts.checkpointDir),
    logger: log,
    instruments,
    atRest,
    onUndecryptable,
  });
}
