/**
 * kube-compatible API server on the embedded default (log + snapshot in one LevelDB), or one
 * replica of several on a Kafka topic.
 *
 *   node --import tsx cmd/apiserver.ts [--data-dir ./data] [--bind-address 127.0.0.1]
 *        [--secure-port 6443] [--history-window 5m] [--watch-buffer-bytes N] [--watch-total-buffer-bytes N] [--token-auth-file F] [--log-level info]
 *        [--log embedded | kafka://host:port[,host:port]/topic]
 *        [--kafka-replication-factor 1] [--kafka-min-insync-replicas 1] [--checkpoint-dir DIR]
 *        [--feature-gates A=true,B=false]
 *        [--pki-dir <data-dir>/pki]   (replicas of one cluster share a CA by sharing this)
 *        [--service-cluster-ip-range 10.0.0.0/24] [--service-node-port-range 30000-32767]
 *        [--advertise-address <bind-address>]
 *        [--event-ttl 1h]   (Events are deleted this long after their last write)
 *        [--show-hidden-metrics-for-version 1.23]   (register /metrics deprecated in the previous minor)
 *        [--shutdown-delay-duration 0s]   (on SIGTERM: /readyz fails, requests still served this long)
 *        [--max-requests-inflight 400] [--max-mutating-requests-inflight 200] [--enable-priority-and-fairness=true]
 *        [--request-timeout 1m0s] [--min-request-timeout 1800]   (non-watch requests; watches, seconds)
 *        [--livez-grace-period 0s]
 *        [--workers 1]   (threads serving HTTP; above 1 the log writer serves none; ours, not kube's: issue 28, internal/app/workers.ts)
 *        [--runtime-config api/all=true,<group>/<version>=false,…]
 *        [--authorization-mode Node,RBAC|AlwaysAllow|AlwaysDeny[,…]] [--anonymous-auth=true|false]
 *        [--audit-log-path F|-] [--audit-policy-file F] [--audit-log-maxage 0] [--audit-log-maxbackup 0] [--audit-log-maxsize 0]
 *        [--admission-control-config-file F]   (AdmissionConfiguration: PodSecurity's PodSecurityConfiguration)
 *        [--oidc-issuer-url https://… --oidc-client-id ID] [--oidc-ca-file F] [--oidc-username-claim sub]
 *        [--oidc-username-prefix P|-] [--oidc-groups-claim C] [--oidc-groups-prefix P]
 *        [--oidc-signing-algs RS256[,…]] [--oidc-required-claim key=value]…
 *        [--client-ca-file F]   (default: <pki-dir>/ca.crt)
 *        [--requestheader-client-ca-file F] [--requestheader-allowed-names a,b]
 *        [--requestheader-username-headers X-Remote-User] [--requestheader-group-headers X-Remote-Group]
 *        [--requestheader-extra-headers-prefix X-Remote-Extra-]
 *        [--proxy-client-cert-file F --proxy-client-key-file F]
 *        [--enable-bootstrap-token-auth] [--authentication-token-webhook-config-file F]
 *        [--authentication-token-webhook-cache-ttl 2m] [--authentication-token-webhook-version v1beta1|v1]
 *        [--service-account-signing-key-file F] [--service-account-key-file F]… [--service-account-issuer URL]…
 *        [--api-audiences A,B] [--service-account-lookup=true] [--service-account-max-token-expiration 0s]
 *        [--service-account-extend-token-expiration=true] [--service-account-jwks-uri URL]   (none of the first three: a key generated under the PKI dir)
 *        [--controllers *,-name,…]   (kube-controller-manager's controllers run in process: '*' enables all
 *            on-by-default ones, 'foo' enables foo, '-foo' disables foo, with kube-controller-manager's names:
 *            namespace, garbagecollector, serviceaccount, serviceaccount-token, root-ca-cert-publisher,
 *            clusterrole-aggregation, pv-protection, pvc-protection, tokencleaner (on with
 *            --enable-bootstrap-token-auth); any other kube-controller-manager name is accepted and
 *            selects nothing, an unknown name is an error. kube-apiserver's own controllers (the
 *            `kubernetes` Service and the service IP/port repair of its bootstrap-controller,
 *            cluster-authentication-trust, --event-ttl) always run: this flag does not turn them off.)
 *
 * On first start it creates a CA, a serving certificate and an admin client certificate under
 * <data-dir>/pki and writes <data-dir>/kubeconfig for kubectl and the client libraries.
 */
import { parseArgs } from 'node:util';
import { FeatureGates } from '../internal/features/gates.ts';
import { startServer } from '../internal/app/app.ts';
import { parseDuration } from '../internal/app/duration.ts';
import { parseGoDuration } from '../internal/http/timeout.ts';
import { parseLogLocation } from '../internal/storage/log/uri.ts';
import { validateShowHiddenMetricsVersion } from '../internal/metrics/lifecycle.ts';
import { parseAuthorizationModes } from '../internal/auth/authorizers.ts';
import { addRequiredClaim, oidcConfigFromFlags, parseSigningAlgs } from '../internal/auth/oidc-claims.ts';
import { parseCsv } from '../internal/auth/authn.ts';
import { parseWebhookVersion } from '../internal/auth/token/webhook.ts';
import { DEFAULT_TOTAL_BYTES, DEFAULT_WATCHER_BYTES } from '../internal/watch/budget.ts';
import { parseControllersFlag } from '../internal/controllers/manager.ts';

const { values } = parseArgs({
  // A bare --enable-priority-and-fairness (default true) is its `=true` form, parsed by boolFlag.
  args: boolFlagValues(process.argv.slice(2), ['enable-bootstrap-token-auth']).map((a) => (a === '--enable-priority-and-fairness' ? `${a}=true` : a)),
  options: {
    'data-dir': { type: 'string', default: './data' },
    'bind-address': { type: 'string', default: '127.0.0.1' },
    'secure-port': { type: 'string', default: '6443' },
    'history-window': { type: 'string', default: '5m' },
    // Bytes a watch stream may have queued for a client that does not read, each and all together
    // (internal/watch/budget.ts; not kube flags: kube's writes block instead of queueing).
    'watch-buffer-bytes': { type: 'string', default: String(DEFAULT_WATCHER_BYTES) },
    'watch-total-buffer-bytes': { type: 'string', default: String(DEFAULT_TOTAL_BYTES) },
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
    'shutdown-delay-duration': { type: 'string', default: '0s' },
    'request-timeout': { type: 'string', default: '1m0s' },
    'min-request-timeout': { type: 'string', default: '1800' },
    // kube: /livez reports unfinished post-start hooks as healthy for this long after start. Every
    // start-up step of this server finishes before it listens, so no check is ever pending; the
    // flag is accepted (and validated) for command-line compatibility.
    'livez-grace-period': { type: 'string', default: '0s' },
    // Repeatable, as kube's map flag: every occurrence adds its pairs.
    'runtime-config': { type: 'string', multiple: true, default: [] },
    'authorization-mode': { type: 'string', default: 'Node,RBAC' },
    'anonymous-auth': { type: 'string', default: 'true' },
    'audit-log-path': { type: 'string' },
    'audit-policy-file': { type: 'string' },
    'audit-log-maxage': { type: 'string', default: '0' },
    'audit-log-maxbackup': { type: 'string', default: '0' },
    'audit-log-maxsize': { type: 'string', default: '0' },
    'oidc-issuer-url': { type: 'string', default: '' },
    'oidc-client-id': { type: 'string', default: '' },
    'oidc-ca-file': { type: 'string', default: '' },
    'oidc-username-claim': { type: 'string', default: 'sub' },
    'oidc-username-prefix': { type: 'string', default: '' },
    'oidc-groups-claim': { type: 'string', default: '' },
    'oidc-groups-prefix': { type: 'string', default: '' },
    // pflag StringSlice (each occurrence CSV) and a repeatable key=value map flag.
    'oidc-signing-algs': { type: 'string', multiple: true, default: [] },
    'oidc-required-claim': { type: 'string', multiple: true, default: [] },
    'client-ca-file': { type: 'string' },
    'requestheader-client-ca-file': { type: 'string' },
    'proxy-client-cert-file': { type: 'string' },
    'proxy-client-key-file': { type: 'string' },
    // pflag string slices: comma-separated, and every occurrence after the first appends.
    'requestheader-allowed-names': { type: 'string', multiple: true, default: [] },
    'requestheader-username-headers': { type: 'string', multiple: true, default: [] },
    'requestheader-group-headers': { type: 'string', multiple: true, default: [] },
    'requestheader-extra-headers-prefix': { type: 'string', multiple: true, default: [] },
    'encryption-provider-config': { type: 'string' },
    'admission-control-config-file': { type: 'string' },
    'enable-bootstrap-token-auth': { type: 'boolean', default: false },
    'authentication-token-webhook-config-file': { type: 'string' },
    'authentication-token-webhook-cache-ttl': { type: 'string', default: '2m' },
    'authentication-token-webhook-version': { type: 'string', default: 'v1beta1' },
    'service-account-signing-key-file': { type: 'string' },
    // Repeatable (kube's StringArray flags: every occurrence adds one value, commas kept).
    'service-account-key-file': { type: 'string', multiple: true, default: [] },
    'service-account-issuer': { type: 'string', multiple: true, default: [] },
    // kube's StringSlice: repeatable and comma-separated.
    'api-audiences': { type: 'string', multiple: true, default: [] },
    // Deprecated in 1.13, still accepted by 1.24 (the same values as --api-audiences).
    'service-account-api-audiences': { type: 'string', multiple: true, default: [] },
    'service-account-lookup': { type: 'string', default: 'true' },
    'service-account-max-token-expiration': { type: 'string', default: '0s' },
    'service-account-extend-token-expiration': { type: 'string', default: 'true' },
    'service-account-jwks-uri': { type: 'string' },
    'max-requests-inflight': { type: 'string', default: '400' },
    workers: { type: 'string', default: '1' },
    'max-mutating-requests-inflight': { type: 'string', default: '200' },
    'enable-priority-and-fairness': { type: 'string', default: 'true' },
    // kube-controller-manager's --controllers (a string slice: comma-separated, repeatable).
    controllers: { type: 'string', multiple: true, default: ['*'] },
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

const shutdownDelayMs = durationFlag('shutdown-delay-duration');
const requestTimeoutMs = durationFlag('request-timeout');
const minRequestTimeoutS = intFlag('min-request-timeout');
const authorizationModes = (() => {
  try {
    return parseAuthorizationModes(values['authorization-mode']!);
  } catch (e) {
    console.error(`Error: ${(e as Error).message}`);
    process.exit(1);
  }
})();
durationFlag('livez-grace-period');
const oidc = (() => {
  try {
    const requiredClaims: Record<string, string> = {};
    for (const v of values['oidc-required-claim']!) addRequiredClaim(requiredClaims, v);
    return oidcConfigFromFlags({
      issuerUrl: values['oidc-issuer-url']!,
      clientId: values['oidc-client-id']!,
      caFile: values['oidc-ca-file'] || undefined,
      usernameClaim: values['oidc-username-claim']!,
      usernamePrefix: values['oidc-username-prefix']!,
      groupsClaim: values['oidc-groups-claim']!,
      groupsPrefix: values['oidc-groups-prefix']!,
      signingAlgs: parseSigningAlgs(values['oidc-signing-algs']!),
      requiredClaims,
    });
  } catch (e) {
    console.error(`Error: ${(e as Error).message}`);
    process.exit(1);
  }
})();
const webhookCacheTtlMs = durationFlag('authentication-token-webhook-cache-ttl');
const webhookVersion = (() => {
  try {
    return parseWebhookVersion(values['authentication-token-webhook-version']!);
  } catch (e) {
    console.error(`Error: ${(e as Error).message}`);
    process.exit(1);
  }
})();
// pflag's deprecation notice, on stderr, as kube-apiserver prints it.
if (values['service-account-api-audiences']!.length) console.error('Flag --service-account-api-audiences has been deprecated, Use --api-audiences');
const serviceAccountMaxTokenExpirationMs = durationFlag('service-account-max-token-expiration');
const maxRequestsInflight = intFlag('max-requests-inflight');
const controllers = (() => {
  try {
    return parseControllersFlag(values.controllers!);
  } catch (e) {
    console.error(`Error: ${(e as Error).message}`);
    process.exit(1);
  }
})();
const maxMutatingRequestsInflight = intFlag('max-mutating-requests-inflight');

const app = await startServer({
  featureGates,
  controllers,
  dataDir: values['data-dir']!,
  bindAddress: values['bind-address']!,
  securePort: Number(values['secure-port']),
  historyWindowMs: parseDuration(values['history-window']!),
  watchBudget: { perWatcher: positiveInt('watch-buffer-bytes', values['watch-buffer-bytes']!), total: positiveInt('watch-total-buffer-bytes', values['watch-total-buffer-bytes']!) },
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
  shutdownDelayMs,
  maxRequestsInflight,
  workers: positiveInt('workers', values.workers!),
  maxMutatingRequestsInflight,
  enablePriorityAndFairness: boolFlag('enable-priority-and-fairness'),
  requestTimeoutMs,
  minRequestTimeoutS,
  runtimeConfig: values['runtime-config']!.join(','),
  authorizationModes,
  anonymousAuth: boolFlag('anonymous-auth'),
  auditLogPath: values['audit-log-path'],
  auditPolicyFile: values['audit-policy-file'],
  auditLogMaxAge: intFlag('audit-log-maxage'),
  auditLogMaxBackup: intFlag('audit-log-maxbackup'),
  auditLogMaxSize: intFlag('audit-log-maxsize'),
  ...(oidc ? { oidc } : {}),
  clientCaFile: values['client-ca-file'],
  requestHeader: values['requestheader-client-ca-file']
    ? {
        clientCaFile: values['requestheader-client-ca-file'],
        allowedNames: stringSliceFlag('requestheader-allowed-names'),
        usernameHeaders: stringSliceFlag('requestheader-username-headers'),
        groupHeaders: stringSliceFlag('requestheader-group-headers'),
        extraHeadersPrefix: stringSliceFlag('requestheader-extra-headers-prefix'),
      }
    : undefined,
  proxyClientCertFile: values['proxy-client-cert-file'],
  proxyClientKeyFile: values['proxy-client-key-file'],
  encryptionProviderConfig: values['encryption-provider-config'],
  admissionControlConfigFile: values['admission-control-config-file'],
  tokenAuth: {
    enableBootstrapTokenAuth: values['enable-bootstrap-token-auth'],
    webhookConfigFile: values['authentication-token-webhook-config-file'],
    webhookCacheTtlMs,
    webhookVersion,
  },
  serviceAccounts: {
    signingKeyFile: values['service-account-signing-key-file'],
    keyFiles: values['service-account-key-file'],
    issuers: values['service-account-issuer'],
    apiAudiences: [...values['api-audiences']!, ...values['service-account-api-audiences']!].flatMap((v) => v.split(',')),
    lookup: boolFlag('service-account-lookup'),
    maxTokenExpirationMs: serviceAccountMaxTokenExpirationMs,
    extendTokenExpiration: boolFlag('service-account-extend-token-expiration'),
    jwksUri: values['service-account-jwks-uri'],
  },
}).catch((err: unknown) => {
  // A start-up error (bad flag value, unreadable policy, storage that cannot open) ends the process with its message.
  console.error(`Error: ${(err as Error).message}`);
  process.exit(1);
});

/** A boolean flag given as `--flag=false` (pflag's strconv.ParseBool). */
function boolFlag(flag: 'anonymous-auth' | 'service-account-lookup' | 'service-account-extend-token-expiration' | 'enable-priority-and-fairness'): boolean {
  const v = values[flag]!;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  console.error(`Error: invalid argument "${v}" for "--${flag}" flag: strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
  process.exit(1);
}

/** A pflag StringSlice flag: each occurrence is one CSV record (quotes allowed), all appended. */
function stringSliceFlag(flag: 'requestheader-allowed-names' | 'requestheader-username-headers' | 'requestheader-group-headers' | 'requestheader-extra-headers-prefix'): string[] {
  const out: string[] = [];
  for (const v of values[flag]!) {
    try {
      out.push(...(v === '' ? [] : (parseCsv(v)[0] ?? [])));
    } catch (e) {
      console.error(`Error: invalid argument ${JSON.stringify(v)} for "--${flag}" flag: ${(e as Error).message}`);
      process.exit(1);
    }
  }
  return out;
}

/** An integer flag (pflag IntVar); a bad value ends the process with pflag's message. */
function intFlag(flag: 'audit-log-maxage' | 'audit-log-maxbackup' | 'audit-log-maxsize' | 'max-requests-inflight' | 'max-mutating-requests-inflight' | 'min-request-timeout'): number {
  const text = values[flag]!;
  if (!/^[+-]?\d+$/.test(text)) {
    console.error(`Error: invalid argument "${text}" for "--${flag}" flag: strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax`);
    process.exit(1);
  }
  return Number(text);
}

/** A duration flag's value in ms; a bad value ends the process with kube's flag error. */
function durationFlag(flag: 'shutdown-delay-duration' | 'livez-grace-period' | 'authentication-token-webhook-cache-ttl' | 'service-account-max-token-expiration' | 'request-timeout'): number {
  const text = values[flag]!;
  try {
    return flag === 'request-timeout' ? parseGoDuration(text) : parseDuration(text);
  } catch (e) {
    const why = flag === 'request-timeout' ? (e as Error).message : `time: invalid duration "${text}"`;
    console.error(`Error: invalid argument "${text}" for "--${flag}" flag: ${why}`);
    process.exit(1);
  }
}

/**
 * pflag's bool flags take `--flag`, `--flag=true` and `--flag=false`; node's parseArgs only the
 * first, so `=value` forms of the named flags are rewritten (a bad value ends the process).
 */
function boolFlagValues(args: string[], flags: string[]): string[] {
  const out: string[] = [];
  for (const a of args) {
    const m = /^--([^=]+)=(.*)$/.exec(a);
    if (!m || !flags.includes(m[1]!)) {
      out.push(a);
      continue;
    }
    if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(m[2]!)) out.push(`--${m[1]}`);
    else if (!['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(m[2]!)) {
      console.error(`Error: invalid argument "${m[2]}" for "--${m[1]}" flag: strconv.ParseBool: parsing ${JSON.stringify(m[2])}: invalid syntax`);
      process.exit(1);
    }
  }
  return out;
}

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
