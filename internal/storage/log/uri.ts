/**
 * Where the log lives, from the `--log` flag:
 *   embedded                          (default) the log shares the snapshot's LevelDB
 *   kafka://host:port[,host:port]/topic
 * Parsing is pure so the CLI tools and the server agree on the grammar.
 */

export type LogLocation = { kind: 'embedded' } | { kind: 'kafka'; brokers: string[]; topic: string };

/** Kafka topic names: 1–249 of [a-zA-Z0-9._-] (Kafka's own rule). */
const TOPIC = /^[a-zA-Z0-9._-]{1,249}$/;
const HOST_PORT = /^(\[[0-9a-fA-F:]+\]|[a-zA-Z0-9.-]+):(\d{1,5})$/;

export function parseLogLocation(text: string | undefined): LogLocation {
  if (!text || text === 'embedded') return { kind: 'embedded' };
  const m = /^kafka:\/\/([^/]+)\/([^/?#]+)$/.exec(text);
  if (!m) throw new Error(`--log: expected "embedded" or kafka://host:port[,host:port]/topic, got "${text}"`);
  const brokers = m[1].split(',').filter(Boolean);
  for (const b of brokers) {
    const hp = HOST_PORT.exec(b);
    if (!hp || Number(hp[2]) < 1 || Number(hp[2]) > 65535) throw new Error(`--log: bad broker address "${b}" (want host:port)`);
  }
  if (!brokers.length) throw new Error('--log: no brokers given');
  if (!TOPIC.test(m[2]) || m[2] === '.' || m[2] === '..') throw new Error(`--log: bad topic name "${m[2]}"`);
  return { kind: 'kafka', brokers, topic: m[2] };
}

export function formatLogLocation(l: LogLocation): string {
  return l.kind === 'embedded' ? 'embedded' : `kafka://${l.brokers.join(',')}/${l.topic}`;
}
