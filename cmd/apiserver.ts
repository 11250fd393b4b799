/**
 * kube-compatible API server on the embedded default (log + snapshot in one LevelDB).
 *
 *   node --import tsx cmd/apiserver.ts [--data-dir ./data] [--bind-address 127.0.0.1]
 *        [--secure-port 6443] [--history-window 5m] [--token-auth-file F] [--log-level info]
 *
 * On first start it creates a CA, a serving certificate and an admin client certificate under
 * <data-dir>/pki and writes <data-dir>/kubeconfig for kubectl and the client libraries.
 */
import { parseArgs } from 'node:util';
import { startServer } from '../internal/app/app.ts';
import { parseDuration } from '../internal/app/duration.ts';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string', default: './data' },
    'bind-address': { type: 'string', default: '127.0.0.1' },
    'secure-port': { type: 'string', default: '6443' },
    'history-window': { type: 'string', default: '5m' },
    'token-auth-file': { type: 'string' },
    'log-level': { type: 'string', default: 'info' },
    'no-fsync': { type: 'boolean', default: false },
  },
  strict: true,
});

const app = await startServer({
  dataDir: values['data-dir']!,
  bindAddress: values['bind-address']!,
  securePort: Number(values['secure-port']),
  historyWindowMs: parseDuration(values['history-window']!),
  tokenAuthFile: values['token-auth-file'],
  logLevel: values['log-level']!,
  sync: !values['no-fsync'],
});

let stopping = false;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    if (stopping) return;
    stopping = true;
    void app.close().then(() => process.exit(0));
  });
}
