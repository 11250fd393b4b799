/**
 * kube-compatible API server on the embedded default (log + snapshot in one LevelDB), or one
 * replica of several on a Kafka topic.
 *
 *   node --import tsx cmd/apiserver.ts [--data-dir ./data] [--bind-address 127.0.0.1]
 *        [--secure-port 6443] [--history-window 5m] [--token-auth-file F] [--log-level info]
 *        [--log embedded | kafka://host:port[,host:port]/topic]
 *        [--kafka-replication-factor 1] [--kafka-min-insync-replicas 1] [--checkpoint-dir DIR]
 *        [--feature-gates A=true,B=false]
 *        [--pki-dir <data-dir>/pki]   (replicas of one cluster share a CA by sharing this)
 *        [--service-cluster-ip-range 10.0.0.0/24] [--service-node-port-range 30000-32767]
 *        [--advertise-address <bind-address>]
 *        [--event-ttl 1h]   (Events are deleted this long after their last write)
 *        [--show-hidden-metrics-for-version 1.23]   (register /metrics deprecated in the previous minor)
 *
 * On first start it creates a CA, a serving certificate and an admin client certificate under
 * <data-dir>/pki and writes <data-dir>/kubeconfig for kubectl and the client libraries.
 */
import { parseArgs } from 'node:util';
import { FeatureGates } from '../internal/features/gates.ts';
import { startServer } from '../internal/app/app.ts';
import { parseDuration } from '../internal/app/duration.ts';
import { parseLogLocation } from '../internal/storage/log/uri.ts';
import { validateShowHiddenMetricsVersion } from '../internal/metrics/lifecycle.ts';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string', default: './data' },
    'bind-address': { type: 'string', default: '127.0.0.1' },
    'secure-port': { type: 'string', default: '6443' },
    'history-window': { type: 'string', default: '5m' },
    'token-auth-file': { type: 'string' },
    'log-level': { type: 'string', default: 'info' },
    'no-fsync': { type: 'boolean', default: false },
    log: { type: 'string', default: 'embedded' },
    'kafka-replication-factor': { type: 'string', default: '1' },
    'kafka-min-insync-replicas': { type: 'string', default: '1' },
    'checkpoint-dir': { type: 'string' },
    'pki-dir': { type: 'string' },
    'feature-gates': { type: 'string', default: '' },
    'service-cluster-ip-range': { type: 'string', default: '10.0.0.0/24' },
    'service-node-port-range': { type: 'string', default: '30000-32767' },
    'advertise-address': { type: 'string' },
    'event-ttl': { type: 'string', default: '1h' },
    'show-hidden-metrics-for-version': { type: 'string', default: '' },
  },
  strict: true,
});

let featureGates: FeatureGates;
try {
  featureGates = new FeatureGates(values['feature-gates']!);
} catch (e) {
  console.error(`Error: invalid argument "${values['feature-gates']}" for "--feature-gates" flag: ${(e as Error).message}`);
  process.exit(1);
}

const hiddenMetricsError = validateShowHiddenMetricsVersion(values['show-hidden-metrics-for-version']!);
if (hiddenMetricsError) {
  console.error(`Error: ${hiddenMetricsError}`);
  process.exit(1);
}

const app = await startServer({
  featureGates,
  dataDir: values['data-dir']!,
  bindAddress: values['bind-address']!,
  securePort: Number(values['secure-port']),
  historyWindowMs: parseDuration(values['history-window']!),
  tokenAuthFile: values['token-auth-file'],
  logLevel: values['log-level']!,
  sync: !values['no-fsync'],
  log: parseLogLocation(values.log),
  kafkaReplicationFactor: positiveInt('kafka-replication-factor', values['kafka-replication-factor']!),
  kafkaMinInsyncReplicas: positiveInt('kafka-min-insync-replicas', values['kafka-min-insync-replicas']!),
  checkpointDir: values['checkpoint-dir'],
  pkiDir: values['pki-dir'],
  serviceClusterIPRange: values['service-cluster-ip-range'],
  serviceNodePortRange: values['service-node-port-range'],
  advertiseAddress: values['advertise-address'],
  eventTtlMs: parseDuration(values['event-ttl']!),
  showHiddenMetrics: values['show-hidden-metrics-for-version'] !== '',
});

function positiveInt(flag: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${flag}: want a positive integer, got "${text}"`);
  return n;
}

let stopping = false;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    if (stopping) return;
    stopping = true;
    void app.close().then(() => process.exit(0));
  });
}
