/**
 * The log topic's contract: exactly one partition (one total order = one resourceVersion
 * sequence) and no deletion of events that no checkpoint covers. Created on first use with the
 * operator's replication settings; an existing topic that breaks the contract stops the start-up.
 */
import type { Admin } from 'kafkajs';

export interface TopicSettings {
  topic: string;
  replicationFactor: number;
  minInsyncReplicas: number;
  /** A materializer publishes checkpoints, so finite retention is acceptable (see docs/kafka.md). */
  checkpointsCover: boolean;
  /** Do not create a missing topic (tools that only read). */
  readOnly?: boolean;
}

/** Events are ≤ ~1.5 MiB objects plus metadata; batches of small events stay well below this. */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

export interface TopicState {
  created: boolean;
  /** First offset still in the topic (retention may have removed older ones). */
  low: number;
  /** The offset the next append gets. */
  high: number;
}

export async function ensureTopic(admin: Admin, s: TopicSettings): Promise<TopicState> {
  let created = false;
  const topics = await admin.listTopics();
  if (!topics.includes(s.topic)) {
    if (s.readOnly) throw new Error(`topic ${s.topic} does not exist`);
    try {
      created = await admin.createTopics({
        waitForLeaders: true,
        topics: [{
          topic: s.topic,
          numPartitions: 1,
          replicationFactor: s.replicationFactor,
          configEntries: [
            { name: 'min.insync.replicas', value: String(s.minInsyncReplicas) },
            { name: 'cleanup.policy', value: 'delete' },
            { name: 'retention.ms', value: '-1' },
            { name: 'retention.bytes', value: '-1' },
            { name: 'max.message.bytes', value: String(MAX_MESSAGE_BYTES) },
          ],
        }],
      });
    } catch (err) {
      // Another replica may have created it between listTopics and createTopics.
      if (!/already exists/i.test((err as Error).message)) throw err;
    }
  }
  const meta = await admin.fetchTopicMetadata({ topics: [s.topic] });
  const partitions = meta.topics[0]?.partitions.length ?? 0;
  if (partitions !== 1) {
    throw new Error(`topic ${s.topic} has ${partitions} partitions; the log needs exactly 1 (one order of resourceVersions)`);
  }
  const cfg = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: 2 /* TOPIC */, name: s.topic, configNames: ['cleanup.policy', 'retention.ms', 'retention.bytes'] }] });
  const entries = new Map(cfg.resources[0]?.configEntries.map((e) => [e.configName, e.configValue]) ?? []);
  if ((entries.get('cleanup.policy') ?? '').includes('compact')) {
    throw new Error(`topic ${s.topic} has cleanup.policy=${entries.get('cleanup.policy')}: compaction deletes events; the log needs cleanup.policy=delete`);
  }
  const finite = (v: string | undefined): boolean => v !== undefined && v !== '-1';
  if ((finite(entries.get('retention.ms')) || finite(entries.get('retention.bytes'))) && !s.checkpointsCover) {
    throw new Error(
      `topic ${s.topic} deletes events (retention.ms=${entries.get('retention.ms')}, retention.bytes=${entries.get('retention.bytes')}) ` +
      'and no checkpoint directory is configured; set retention to -1 or pass --checkpoint-dir with a running materializer',
    );
  }
  const offsets = await admin.fetchTopicOffsets(s.topic);
  const p0 = offsets.find((o) => o.partition === 0)!;
  return { created, low: Number(p0.low), high: Number(p0.high) };
}
