/**
 * What starting one API server process takes (the flags of cmd/apiserver.ts, already parsed) and
 * what it gives back.
 */
import type { MessagePort } from 'node:worker_threads';
import type { FeatureGates } from '../features/gates.ts';
import type { Pki } from '../auth/pki.ts';
import type { TokenAuthOptions } from './token-auth.ts';
import type { AuthorizationMode } from '../auth/authorizers.ts';
import type { Storage, FollowerLink } from '../storage/storage.ts';
import type { KindDescriptor } from '../registry/rest/strategy.ts';
import type { Registry } from '../registry/registry.ts';
import type { BudgetLimits } from '../watch/budget.ts';
import type { LogLocation } from '../storage/log/uri.ts';
import type { OidcConfig } from '../auth/oidc-claims.ts';
import type { RequestHeaderFlags } from '../auth/requestheader.ts';
import type { ServiceAccountFlags } from '../auth/serviceaccount/options.ts';
import type { ServingThreads } from './workers.ts';

export interface ServerOptions {
  dataDir: string;
  /** Where the log lives (default embedded). */
  log?: LogLocation;
  /** Kafka topic creation settings (when this replica creates the topic). */
  kafkaReplicationFactor?: number;
  kafkaMinInsyncReplicas?: number;
  /** Checkpoints published by `cmd/materializer.ts`: a replica with no data bootstraps from the newest. */
  checkpointDir?: string;
  /** CA and certificates (default <dataDir>/pki); replicas of one cluster share one. */
  pkiDir?: string;
  bindAddress: string;
  securePort: number;
  historyWindowMs: number;
  /** Bytes watch streams may have queued, each and all together (internal/watch/budget.ts defaults). */
  watchBudget?: Partial<BudgetLimits>;
  tokenAuthFile?: string;
  logLevel?: string;
  sync?: boolean;
  kinds?: KindDescriptor[];
  /** Namespace controller: delay before a terminating namespace is emptied (default kube's 5 s). */
  namespaceDeletionGraceMs?: number;
  /** How often the APF config-producer restores the bootstrap configuration (kube: 60 s; tests). */
  apfConfigResyncMs?: number;
  /**
   * --controllers: kube-controller-manager's controllers to run (its syntax, parsed by
   * parseControllersFlag; default `*`). kube-apiserver's own controllers always run.
   */
  controllers?: string[];
  /**
   * Run the garbage collector (default true; false = `-garbagecollector` first in `controllers`).
   * Tests turn it off to leave collection work undone, then restart with it on to check that a
   * restarted server resumes it.
   */
  garbageCollector?: boolean;
  /**
   * Run kube-controller-manager's per-namespace controllers (default true): the serviceaccounts
   * controller (`default` in every active namespace) and the root-ca-cert-publisher
   * (`kube-root-ca.crt`), and the serviceaccount-token controller. false = `-serviceaccount,
   * -root-ca-cert-publisher,-serviceaccount-token` first in `controllers`. Only tests that must see
   * an empty fresh namespace turn them off.
   */
  namespaceDefaults?: boolean;
  /** `--feature-gates` (1.24 defaults when absent). */
  featureGates?: FeatureGates;
  /** --service-cluster-ip-range (default 10.0.0.0/24) and --service-node-port-range (30000-32767). */
  serviceClusterIPRange?: string;
  serviceNodePortRange?: string;
  /** --advertise-address: published in the `kubernetes` Endpoints (default: the bind address). */
  advertiseAddress?: string;
  /** --event-ttl: Events are deleted this long after their last write (default 1h; 0 = never). */
  eventTtlMs?: number;
  /** --show-hidden-metrics-for-version was given (validated): register the hidden metrics too. */
  showHiddenMetrics?: boolean;
  /**
   * --shutdown-delay-duration: after close() begins, /readyz fails but requests are still served
   * this long before the listener closes (default 0).
   */
  shutdownDelayMs?: number;
  /**
   * --max-requests-inflight (400) and --max-mutating-requests-inflight (200): with Priority and
   * Fairness their sum is the server's concurrency limit, shared out among the priority levels;
   * without it, the two limits of the max-in-flight filter. 0 = unlimited (max-in-flight only).
   */
  maxRequestsInflight?: number;
  maxMutatingRequestsInflight?: number;
  /** --enable-priority-and-fairness (default true); false: the max-in-flight filter instead. */
  enablePriorityAndFairness?: boolean;
  /** --request-timeout: the longest a non-watch request may take (default 60 s; http/timeout.ts). */
  requestTimeoutMs?: number;
  /** --min-request-timeout (seconds, default 1800): a watch without timeoutSeconds ends after [min, 2·min). */
  minRequestTimeoutS?: number;
  /** --authorization-mode (default Node,RBAC), checked by parseAuthorizationModes. */
  authorizationModes?: AuthorizationMode[];
  /** --anonymous-auth (default true): requests without credentials are system:anonymous. */
  anonymousAuth?: boolean;
  /** --runtime-config: API versions and resources switched on or off (kube's syntax). */
  runtimeConfig?: string;
  /** --audit-log-path (`-`: stdout) with --audit-policy-file: where audit events go. */
  auditLogPath?: string;
  /** --audit-policy-file: without it nothing is audited (as kube-apiserver). */
  auditPolicyFile?: string;
  /** --audit-log-maxage (days), --audit-log-maxbackup (files), --audit-log-maxsize (MB). */
  auditLogMaxAge?: number;
  auditLogMaxBackup?: number;
  auditLogMaxSize?: number;
  /** --oidc-* (after oidcConfigFromFlags): the OpenID Connect token authenticator; absent = off. */
  oidc?: OidcConfig;
  /**
   * --client-ca-file: the CAs whose client certificates authenticate (CN user, O groups). Absent:
   * this server's generated CA (<pki>/ca.crt), which signs the admin certificate of the kubeconfig.
   */
  clientCaFile?: string;
  /** --requestheader-client-ca-file and friends: the authenticating proxy (off without the CA file). */
  requestHeader?: RequestHeaderFlags;
  /** --proxy-client-cert-file / --proxy-client-key-file: the client pair the aggregator presents to APIService backends. */
  proxyClientCertFile?: string;
  proxyClientKeyFile?: string;
  /**
   * --encryption-provider-config: kube's EncryptionConfiguration; the resources it names are
   * encrypted before their events enter the log. Every replica of a topic needs the same file.
   */
  encryptionProviderConfig?: string;
  /**
   * --admission-control-config-file: kube's AdmissionConfiguration; this server reads the
   * PodSecurity plugin's PodSecurityConfiguration from it (defaults and exemptions).
   */
  admissionControlConfigFile?: string;
  /**
   * Token authentication beyond --token-auth-file: --enable-bootstrap-token-auth,
   * --authentication-token-webhook-config-file / -cache-ttl / -version, --api-audiences.
   */
  tokenAuth?: TokenAuthOptions;
  /**
   * --service-account-signing-key-file, --service-account-key-file, --service-account-issuer,
   * --api-audiences, --service-account-lookup, --service-account-max-token-expiration,
   * --service-account-extend-token-expiration (none given: a key generated under the PKI dir).
   */
  serviceAccounts?: ServiceAccountFlags;
  /**
   * `--workers` (issue 28): threads serving HTTP. 1 (default): the single thread, which also writes
   * the log, folds and runs the controllers; N > 1: N serving threads, and this one (the leader: the
   * log writer, the fold, the controllers) serves none. app/workers.ts.
   */
  workers?: number;
  /** Set in a serving thread by app/workers.ts: this thread follows the leader's storage. */
  follower?: FollowerLink;
  /** A serving thread's port to its leader's services (app/leader-services.ts). */
  leaderServices?: MessagePort;
}

export interface RunningServer {
  url: string;
  port: number;
  kubeconfigPath: string;
  pki: Pki;
  storage: Storage;
  /** The served kinds; tests add and remove kinds through it (issue 26: CRDs will, from the fold). */
  registry: Registry;
  /** `--workers N`, N > 1: the threads that serve HTTP (this one, the leader, serves none). */
  threads?: Pick<ServingThreads, 'count' | 'requestsServed'>;
  close(): Promise<void>;
}
