/**
 * Standalone materializer: folds the Kafka log into its own snapshot store and publishes
 * checkpoints (a copy of the snapshot + the offset it covers) for API replicas to bootstrap from.
 *
 *   node --import tsx cmd/materializer.ts --log kafka://host:port/topic --data-dir ./materializer
 *        --checkpoint-dir ./checkpoints [--checkpoint-interval 30s] [--history-window 5m] [--once]
 *
 * A replica started with the same --checkpoint-dir and an empty --data-dir copies the newest
 * checkpoint (see internal/storage/checkpoint.ts for the layout) and tails the log from there.
 * --once: catch up with the log's end, write one checkpoint, exit.
 */
import { parseArgs } from 'node:util';
import pino from 'pino';
import { Storage } from '../internal/storage/storage.ts';
import { writeCheckpoint } from '../internal/storage/checkpoint.ts';
import { parseDuration } from '../internal/app/duration.ts';
import { parseLogLocation } from '../internal/storage/log/uri.ts';

const { values } = parseArgs({
  options: {
    log: { type: 'string' },
    'data-dir': { type: 'string', default: './materializer-data' },
    'checkpoint-dir': { type: 'string' },
    'checkpoint-interval': { type: 'string', default: '30s' },
    'history-window': { type: 'string', default: '5m' },
    'kafka-replication-factor': { type: 'string', default: '1' },
    'kafka-min-insync-replicas': { type: 'string', default: '1' },
    'log-level': { type: 'string', default: 'info' },
    once: { type: 'boolean', default: false },
  },
  strict: true,
});

const logger = pino({ level: values['log-level']! }, pino.destination(2));
const where = parseLogLocation(values.log);
if (where.kind !== 'kafka') throw new Error('--log kafka://host:port/topic is required: the embedded log is folded by the API server itself');
if (!values['checkpoint-dir']) throw new Error('--checkpoint-dir is required');
const checkpointDir = values['checkpoint-dir'];
const intervalMs = parseDuration(values['checkpoint-interval']!);

const storage = await Storage.openKafka({
  dataDir: values['data-dir']!,
  historyWindowMs: parseDuration(values['history-window']!),
  brokers: where.brokers,
  topic: where.topic,
  replicationFactor: Number(values['kafka-replication-factor']),
  minInsyncReplicas: Number(values['kafka-min-insync-replicas']),
  checkpointsCover: true,
  clientId: 'kube-materializer',
  logger,
});

let lastOffset = -1;
async function checkpoint(): Promise<void> {
  if (storage.folded === lastOffset) return; // nothing new to publish
  const info = await writeCheckpoint(storage.db, checkpointDir);
  lastOffset = info.offset;
  // One line on stdout per checkpoint: tools and tests read it.
  process.stdout.write(`${JSON.stringify({ checkpoint: info })}\n`);
  logger.info(info, 'checkpoint published');
}

if (values.once) {
  // openKafka caught up at start-up; any folded offset makes a valid checkpoint, so catching up
  // with writes made since then is best effort.
  await storage.latest(60_000).catch(() => undefined);
  await checkpoint();
  await storage.close();
  process.exit(0);
}

await checkpoint();
let busy = false;
const timer = setInterval(() => {
  if (busy) return;
  busy = true;
  checkpoint().catch((err: Error) => logger.error({ err: err.message }, 'checkpoint failed')).finally(() => (busy = false));
}, intervalMs);

let stopping = false;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    if (stopping) return;
    stopping = true;
    clearInterval(timer);
    void storage.close().then(() => process.exit(0));
  });
}
