/**
 * A real Apache Kafka broker (KRaft mode, no ZooKeeper, no Docker) for tests: one node, or three
 * nodes with replication factor 3 and min.insync.replicas 2 for fault tests.
 *
 *   const kafka = await startKafka({ brokers: 3 });
 *   // kafka.bootstrap === '127.0.0.1:p0,127.0.0.1:p1,127.0.0.1:p2'
 *   await kafka.stopBroker(1);  …  await kafka.startBroker(1);
 *   await kafka.stop();
 *
 * Every node is a combined broker+controller JVM (`java -cp '<libs>/*' kafka.Kafka <props>`)
 * listening on 127.0.0.1 only, on ports picked free at start. The jars come from Maven Central
 * through fetch.sh (run here when they are missing) into .cache/kafka/<version>/libs.
 *
 * The quorum is a KIP-853 dynamic one, as the Kafka 4.x docs recommend: storage is formatted with
 * `--standalone` for one node and `--initial-controllers id@host:port:dirId,…` (the same value
 * on every node) for three, and the nodes find it through controller.quorum.bootstrap.servers.
 *
 * No orphan JVMs: each JVM is started through `setpriv --pdeathsig KILL` when setpriv exists (the
 * kernel kills it if this process dies, even by SIGKILL), stays in this process's group (test/run.ts
 * kills a test file's whole group when it ends), and each cluster registers exit and signal
 * handlers that SIGKILL its JVMs, removed again by stop().
 *
 * CLI (manual use, docs):
 *   node --import tsx test/kafka/broker.ts fetch
 *   node --import tsx test/kafka/broker.ts start [--brokers 1|3] [--dir D]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { JVM_OPTS, cdsArchivePath, ensureKafkaJars, hasSetpriv, javaBin, kafkaVersion } from './jvm.ts';
import { filterKafkajsWarnings } from '../../internal/storage/log/kafkajs.ts';

// Every Kafka test imports this file and uses kafkajs in its own process, as the servers do: the
// same filter keeps kafkajs' TimeoutNegativeWarning (Node ≥ 23) out of the test output.
filterKafkajsWarnings();

export { ensureKafkaJars, kafkaLibsDir, kafkaVersion } from './jvm.ts';

const HOST = '127.0.0.1';

/**
 * Three JVMs starting at once take ~4 s on an idle 2-core machine and 10–15 s on one loaded 6x
 * over; 90 s leaves room for a slow CI without hiding a broker that hangs.
 */
const DEFAULT_START_TIMEOUT_MS = 90_000;
/**
 * A graceful (SIGTERM) shutdown takes 0.2–2 s, ~6 s for the last Raft leader of a quorum that is
 * already gone (it waits out its own 5 s shutdown timeout); past this the JVM is SIGKILLed.
 */
const STOP_GRACE_MS = 10_000;
/** How much of a failed broker's log goes into the error. */
const LOG_TAIL_BYTES = 6 * 1024;
const POLL_MS = 200;

/** A running (or stopped) test cluster. Indexes `i` are 0..size-1 and equal the node ids. */
export interface KafkaCluster {
  /** All brokers, `127.0.0.1:p0,127.0.0.1:p1,…`, stopped ones included. */
  readonly bootstrap: string;
  readonly size: number;
  /** The cluster's directory: node-<i>/{server.properties,data/,broker.log}, kafka.pids. */
  readonly logDir: string;
  /** `<node id> <pid>` per running node, rewritten on every start and stop. */
  readonly pidFile: string;
  readonly clusterId: string;
  /** `127.0.0.1:port` of broker i. */
  brokerAddress(i: number): string;
  isRunning(i: number): boolean;
  /**
   * Stop broker i: SIGTERM (a controlled shutdown that hands off leadership and leaves the ISR)
   * and SIGKILL after a grace, or SIGKILL at once with `{ kill: true }` (a crash). Resolves when
   * the JVM is gone; a no-op for a stopped broker.
   */
  stopBroker(i: number, opts?: { kill?: boolean }): Promise<void>;
  /** Start broker i again on its ports and data; resolves when the cluster lists it. */
  startBroker(i: number): Promise<void>;
  /**
   * Stop every broker and remove the directory if startKafka created it. By default a cluster
   * whose directory is about to be removed is SIGKILLed (a graceful stop of three nodes at once
   * takes ~6 s: the last Raft leader waits out its shutdown timeout), and one in a caller's
   * directory gets SIGTERM; `{ graceful }` overrides. Idempotent.
   */
  stop(opts?: { graceful?: boolean }): Promise<void>;
}

export interface StartKafkaOptions {
  brokers: 1 | 3;
  /** An empty or missing directory to use (kept after stop); default a fresh temporary one. */
  dir?: string;
  /** For all brokers to be listed by the cluster; default 90 s. */
  startTimeoutMs?: number;
  /** Extra server.properties entries, applied last (they win). */
  props?: Record<string, string>;
  /** Extra JVM flags for the brokers, after the defaults (e.g. '-Xmx1g'). */
  jvmArgs?: string[];
}

/**
 * Start a cluster of `opts.brokers` nodes and wait until every broker is up and listed by the
 * cluster. Throws (after killing whatever it started) if a broker exits or the timeout passes;
 * the error carries the tail of the failing broker's log. One retry with fresh ports if a port
 * picked as free was taken before the JVM bound it.
 */
export async function startKafka(opts: StartKafkaOptions): Promise<KafkaCluster> {
  const libs = await ensureKafkaJars();
  const cds = await ensureCdsArchive(libs);
  return startCluster(libs, opts, cds ? [`-XX:SharedArchiveFile=${cds}`] : []);
}

/**
 * The jars and the CDS archive (see ensureCdsArchive), for CI to prefetch everything at once.
 * Returns the libs directory.
 */
export async function prepareKafka(): Promise<string> {
  const libs = await ensureKafkaJars();
  await ensureCdsArchive(libs);
  return libs;
}

/**
 * The path of a dynamic AppCDS archive of the classes a broker loads while it starts, made on
 * first use by starting one broker with -XX:ArchiveClassesAtExit and stopping it gracefully
 * (~5 s, once per jar set and JDK). Brokers mapping it spend ~1.4 s of CPU starting instead of
 * ~2.7 s. Only an optimization: any failure (or KAFKA_CDS=0) yields undefined and brokers start
 * without it. Concurrent makers each write their own file and rename it into place.
 */
async function ensureCdsArchive(libs: string): Promise<string | undefined> {
  const archive = process.env.KAFKA_CDS === '0' ? undefined : cdsArchivePath(libs);
  if (!archive || existsSync(archive)) return archive;
  const tmp = `${archive}.${process.pid}.tmp`;
  const t0 = Date.now();
  try {
    const trainer = await startCluster(libs, { brokers: 1 }, [`-XX:ArchiveClassesAtExit=${tmp}`]);
    await trainer.stop({ graceful: true });
    if (existsSync(tmp)) {
      renameSync(tmp, archive);
      process.stderr.write(`kafka: made CDS archive ${archive} in ${Date.now() - t0} ms\n`);
    }
  } catch (err) {
    process.stderr.write(`kafka: no CDS archive, brokers start without it: ${(err as Error).message.split('\n')[0]}\n`);
  } finally {
    rmSync(tmp, { force: true });
  }
  return existsSync(archive) ? archive : undefined;
}

async function startCluster(libs: string, opts: StartKafkaOptions, jvmArgs: string[]): Promise<KafkaCluster> {
  for (let attempt = 1; ; attempt++) {
    const dir = opts.dir ?? mkdtempSync(path.join(tmpdir(), 'kafka-test-'));
    const nodes = await planNodes(dir, opts.brokers);
    const cluster = new Cluster(libs, dir, opts.dir === undefined, opts, nodes, [...JVM_OPTS, ...jvmArgs]);
    try {
      await cluster.start(opts.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS);
      return cluster;
    } catch (err) {
      await cluster.stop();
      const portRace = err instanceof BrokerStartError && /Address already in use/.test(err.logTail);
      if (!portRace || attempt >= 2 || opts.dir !== undefined) throw err;
    }
  }
}

/** A broker that did not come up; `logTail` is the end of its stdout/stderr. */
export class BrokerStartError extends Error {
  constructor(
    message: string,
    readonly logTail: string,
  ) {
    super(`${message}\n--- broker log tail ---\n${logTail}`);
    this.name = 'BrokerStartError';
  }
}

// ---------------------------------------------------------------------------------------------

interface NodeSpec {
  id: number;
  brokerPort: number;
  controllerPort: number;
  /** KIP-853 directory id of the node's metadata log dir, used by --initial-controllers. */
  directoryId: string;
  dir: string;
  propsFile: string;
  logFile: string;
}

/** Ports and directories of `size` nodes under dir (ids 0..size-1). */
async function planNodes(dir: string, size: number): Promise<NodeSpec[]> {
  const ports = await freePorts(size * 2);
  return Array.from({ length: size }, (_, id) => {
    const nodeDir = path.join(dir, `node-${id}`);
    return {
      id,
      brokerPort: ports[id * 2]!,
      controllerPort: ports[id * 2 + 1]!,
      directoryId: kafkaUuid(),
      dir: nodeDir,
      propsFile: path.join(nodeDir, 'server.properties'),
      logFile: path.join(nodeDir, 'broker.log'),
    };
  });
}

interface RunningNode {
  child: ChildProcess;
  exited: Promise<void>;
  hasExited: () => boolean;
}

class Cluster implements KafkaCluster {
  readonly size: number;
  readonly clusterId = kafkaUuid();
  readonly pidFile: string;
  readonly bootstrap: string;
  private readonly running = new Map<number, RunningNode>();
  private readonly usePdeathsig = hasSetpriv();
  private stopped = false;

  /** Throws if logDir exists and is not empty. */
  constructor(
    private readonly libs: string,
    readonly logDir: string,
    private readonly ownsDir: boolean,
    private readonly opts: StartKafkaOptions,
    private readonly nodes: readonly NodeSpec[],
    /** JVM_OPTS plus the CDS flag: shared by the storage tool and the brokers. */
    private readonly jvm: readonly string[],
  ) {
    this.size = nodes.length;
    this.pidFile = path.join(logDir, 'kafka.pids');
    this.bootstrap = nodes.map((n) => `${HOST}:${n.brokerPort}`).join(',');
    mkdirSync(logDir, { recursive: true });
    if (readdirSync(logDir).length > 0) throw new Error(`kafka dir ${logDir} is not empty`);
  }

  brokerAddress(i: number): string {
    return `${HOST}:${this.node(i).brokerPort}`;
  }

  isRunning(i: number): boolean {
    const r = this.running.get(i);
    return r !== undefined && !r.hasExited();
  }

  /** Write configs, format storage, start every node, wait for all of them. */
  async start(timeoutMs: number): Promise<void> {
    writeFileSync(path.join(this.logDir, 'log4j2.properties'), LOG4J_CONFIG);
    for (const n of this.nodes) {
      mkdirSync(n.dir);
      writeFileSync(n.propsFile, propertiesText(this.serverProps(n)));
    }
    await Promise.all(this.nodes.map((n) => this.format(n)));
    this.installExitHandlers();
    for (const n of this.nodes) this.spawnNode(n);
    await this.waitListed(this.nodes.map((n) => n.id), Date.now() + timeoutMs);
  }

  async startBroker(i: number): Promise<void> {
    if (this.stopped) throw new Error('kafka cluster is stopped');
    const n = this.node(i);
    if (this.isRunning(i)) return;
    this.spawnNode(n);
    await this.waitListed([i], Date.now() + (this.opts.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS));
  }

  async stopBroker(i: number, opts: { kill?: boolean } = {}): Promise<void> {
    this.node(i);
    const r = this.running.get(i);
    if (!r) return;
    await terminate(r, opts.kill ? 0 : STOP_GRACE_MS);
    this.running.delete(i);
    this.writePidFile();
  }

  async stop(opts: { graceful?: boolean } = {}): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const grace = (opts.graceful ?? !this.ownsDir) ? STOP_GRACE_MS : 0;
    // all at once: one by one, the last node would wait on a quorum that is already gone
    await Promise.all([...this.running.values()].map((r) => terminate(r, grace)));
    this.running.clear();
    this.removeExitHandlers();
    if (this.ownsDir) rmSync(this.logDir, { recursive: true, force: true });
    else this.writePidFile();
  }

  private node(i: number): NodeSpec {
    const n = this.nodes[i];
    if (!n) throw new RangeError(`no broker ${i} in a cluster of ${this.size}`);
    return n;
  }

  /**
   * server.properties of node n. Replication settings follow the size: with three nodes every
   * topic, including the internal ones, has RF 3 and min.insync.replicas 2, so one node may be
   * down and acks=all still succeeds, and two down makes it fail. Internal topics get 4
   * partitions instead of 50, so the first consumer group or transaction does not wait on 150
   * partition replicas being created.
   */
  private serverProps(n: NodeSpec): Record<string, string> {
    const rf = String(this.size);
    const minIsr = this.size === 3 ? '2' : '1';
    return {
      'process.roles': 'broker,controller',
      'node.id': String(n.id),
      listeners: `PLAINTEXT://${HOST}:${n.brokerPort},CONTROLLER://${HOST}:${n.controllerPort}`,
      'advertised.listeners': `PLAINTEXT://${HOST}:${n.brokerPort},CONTROLLER://${HOST}:${n.controllerPort}`,
      'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
      'inter.broker.listener.name': 'PLAINTEXT',
      'controller.listener.names': 'CONTROLLER',
      'controller.quorum.bootstrap.servers': this.nodes.map((m) => `${HOST}:${m.controllerPort}`).join(','),
      'log.dirs': path.join(n.dir, 'data'),
      'num.partitions': '1',
      'default.replication.factor': rf,
      'min.insync.replicas': minIsr,
      'offsets.topic.replication.factor': rf,
      'offsets.topic.num.partitions': '4',
      'transaction.state.log.replication.factor': rf,
      'transaction.state.log.min.isr': minIsr,
      'transaction.state.log.num.partitions': '4',
      'share.coordinator.state.topic.replication.factor': rf,
      'share.coordinator.state.topic.min.isr': minIsr,
      'share.coordinator.state.topic.num.partitions': '4',
      'auto.create.topics.enable': 'false',
      'group.initial.rebalance.delay.ms': '0',
      // a killed node is fenced (and leaves the ISR) after 6 s instead of 9 s; heartbeats every
      // second keep that well clear of GC pauses on a loaded machine
      'broker.heartbeat.interval.ms': '1000',
      'broker.session.timeout.ms': '6000',
      // small thread pools and cleaner buffer: three JVMs share 2 cores (defaults: 3/8 threads, 128 MiB)
      'num.network.threads': '2',
      'num.io.threads': '2',
      'background.threads': '2',
      'log.cleaner.threads': '1',
      'log.cleaner.dedupe.buffer.size': String(8 * 1024 * 1024),
      ...this.opts.props,
    };
  }

  /** kafka-storage format: standalone for one node, the same three initial controllers on each of three. */
  private async format(n: NodeSpec): Promise<void> {
    const quorum =
      this.size === 1
        ? ['--standalone']
        : ['--initial-controllers', this.nodes.map((m) => `${m.id}@${HOST}:${m.controllerPort}:${m.directoryId}`).join(',')];
    const args = [...this.jvm, ...this.logArgs(), '-cp', path.join(this.libs, '*'), 'kafka.tools.StorageTool', 'format'];
    args.push('-t', this.clusterId, '-c', n.propsFile, ...quorum);
    const fd = openSync(n.logFile, 'a');
    try {
      const child = spawn(javaBin(), args, { stdio: ['ignore', fd, fd] });
      const code = await new Promise<number | null>((resolve, reject) => {
        child.once('error', reject);
        child.once('exit', resolve);
      });
      if (code !== 0) throw new BrokerStartError(`kafka storage format of node ${n.id} failed (exit ${code})`, logTail(n.logFile));
    } finally {
      closeSync(fd);
    }
  }

  private logArgs(): string[] {
    return [`-Dlog4j2.configurationFile=${path.join(this.logDir, 'log4j2.properties')}`];
  }

  private spawnNode(n: NodeSpec): void {
    const java = [javaBin(), ...this.jvm, ...(this.opts.jvmArgs ?? []), ...this.logArgs()];
    java.push('-cp', path.join(this.libs, '*'), 'kafka.Kafka', n.propsFile);
    const [cmd, ...args] = this.usePdeathsig ? ['setpriv', '--pdeathsig', 'KILL', '--', ...java] : java;
    const fd = openSync(n.logFile, 'a');
    let child: ChildProcess;
    try {
      writeFileSync(fd, `\n=== ${new Date().toISOString()} starting node ${n.id}: ${java.join(' ')}\n`);
      child = spawn(cmd!, args, { stdio: ['ignore', fd, fd], cwd: n.dir });
    } finally {
      closeSync(fd);
    }
    let exited = false;
    const done = new Promise<void>((resolve) => {
      child.once('exit', () => {
        exited = true;
        resolve();
      });
      child.once('error', (err) => {
        writeFileSync(n.logFile, `spawn failed: ${err.message}\n`, { flag: 'a' });
        exited = true;
        resolve();
      });
    });
    this.running.set(n.id, { child, exited: done, hasExited: () => exited });
    this.writePidFile();
  }

  /**
   * Wait until each of `ids` accepts connections and a kafkajs admin, talking to the running
   * nodes, lists topics and sees every running broker in describeCluster. Fails at once if one
   * of `ids` exits.
   */
  private async waitListed(ids: number[], deadline: number): Promise<void> {
    let last = 'no attempt yet';
    for (;;) {
      for (const id of ids) {
        if (!this.isRunning(id)) {
          const n = this.node(id);
          throw new BrokerStartError(`kafka broker ${id} exited during start (log ${n.logFile})`, logTail(n.logFile));
        }
      }
      const live = this.nodes.filter((n) => this.isRunning(n.id));
      try {
        for (const id of ids) await tcpProbe(this.node(id).brokerPort);
        const listed = await describeBrokers(live.map((n) => `${HOST}:${n.brokerPort}`));
        const missing = live.filter((n) => !listed.includes(n.id)).map((n) => n.id);
        if (missing.length === 0) return;
        last = `cluster lists brokers [${listed.join(',')}], not yet [${missing.join(',')}]`;
      } catch (err) {
        last = (err as Error).message;
      }
      if (Date.now() > deadline) {
        const n = this.node(ids[0]!);
        throw new BrokerStartError(`kafka brokers [${ids.join(',')}] not ready in time: ${last}`, logTail(n.logFile));
      }
      await sleep(POLL_MS);
    }
  }

  private writePidFile(): void {
    const lines = [...this.running].filter(([, r]) => !r.hasExited()).map(([id, r]) => `${id} ${r.child.pid}\n`);
    if (existsSync(this.logDir)) writeFileSync(this.pidFile, lines.join(''));
  }

  /**
   * Last-resort cleanup when the process ends without stop(): only synchronous work is possible
   * in 'exit', so SIGKILL (nothing is written after it) and remove a directory we created.
   */
  private readonly killAllNow = (): void => {
    for (const r of this.running.values()) {
      if (!r.hasExited() && r.child.pid !== undefined) {
        try {
          process.kill(r.child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    if (this.ownsDir) {
      try {
        rmSync(this.logDir, { recursive: true, force: true });
      } catch {
        // best effort: a temporary directory
      }
    }
  };

  /**
   * On SIGINT/SIGTERM/SIGHUP: kill the JVMs; then, if no one else listens for the signal, re-raise
   * it so the process still ends as it would have. A process with its own handler (the CLI)
   * stops the cluster itself.
   */
  private readonly onSignal = (sig: NodeJS.Signals): void => {
    if (process.listenerCount(sig) > 1) return;
    this.killAllNow();
    this.removeExitHandlers();
    process.kill(process.pid, sig);
  };

  private installExitHandlers(): void {
    process.on('exit', this.killAllNow);
    for (const sig of SIGNALS) process.on(sig, this.onSignal);
  }

  private removeExitHandlers(): void {
    process.off('exit', this.killAllNow);
    for (const sig of SIGNALS) process.off(sig, this.onSignal);
  }
}

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** SIGTERM, then SIGKILL after `graceMs` (at once when 0); resolves when the process is gone. */
async function terminate(r: RunningNode, graceMs: number): Promise<void> {
  if (r.hasExited()) return;
  r.child.kill(graceMs > 0 ? 'SIGTERM' : 'SIGKILL');
  const timer = graceMs > 0 ? setTimeout(() => r.child.kill('SIGKILL'), graceMs) : undefined;
  await r.exited;
  if (timer) clearTimeout(timer);
}

/** Node ids that the cluster lists, after listing topics, asked through a throwaway admin. */
async function describeBrokers(addresses: string[]): Promise<number[]> {
  const kafka = new Kafka({
    clientId: 'kafka-test-harness',
    brokers: addresses,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1000,
    requestTimeout: 5000,
    retry: { retries: 0 },
  });
  const admin = kafka.admin({ retry: { retries: 0 } });
  try {
    await admin.connect();
    await admin.listTopics();
    const { brokers } = await admin.describeCluster();
    return brokers.map((b) => b.nodeId);
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/** Resolves once 127.0.0.1:port accepts a TCP connection; rejects otherwise. */
function tcpProbe(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: HOST, port });
    s.setTimeout(1000, () => s.destroy(new Error(`connect ${HOST}:${port} timed out`)));
    s.once('connect', () => {
      s.destroy();
      resolve();
    });
    s.once('error', (err) => reject(new Error(`connect ${HOST}:${port}: ${err.message}`)));
  });
}

/** `n` distinct ports that were free on 127.0.0.1 a moment ago (all held open until all are chosen). */
async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: n }, () => {
      const srv = createServer();
      return new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
        srv.once('error', reject);
        srv.listen(0, HOST, () => resolve(srv));
      });
    }),
  );
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

/**
 * A Kafka Uuid as its tools print it: 16 random bytes, URL-safe base64 without padding. Like
 * Kafka's Uuid.randomUuid, never one starting with '-', which a command line would take for a flag.
 */
function kafkaUuid(): string {
  for (;;) {
    const s = randomBytes(16).toString('base64url');
    if (!s.startsWith('-')) return s;
  }
}

function propertiesText(props: Record<string, string>): string {
  return `${Object.entries(props)
    .map(([k, v]) => `${k}=${v.replace(/\\/g, '\\\\')}`)
    .join('\n')}\n`;
}

/** The end of a log file, for error messages. */
function logTail(file: string): string {
  try {
    const text = readFileSync(file, 'utf8');
    return text.length > LOG_TAIL_BYTES ? `…${text.slice(-LOG_TAIL_BYTES)}` : text;
  } catch {
    return `(no log at ${file})`;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Warnings and errors only, plus the one line that says a server started. NetworkClient's
 * "connection could not be established" warnings are dropped: peers that are starting or were
 * stopped on purpose produce dozens. log4j's own shutdown hook is off because Kafka's, which
 * still logs, runs in the JVM's shutdown.
 */
const LOG4J_CONFIG = `status = warn
shutdownHook = disable
appender.out.type = Console
appender.out.name = out
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c{1})%n
rootLogger.level = warn
rootLogger.appenderRef.out.ref = out
logger.started.name = kafka.server.KafkaRaftServer
logger.started.level = info
logger.netclient.name = org.apache.kafka.clients.NetworkClient
logger.netclient.level = error
`;

// ---------------------------------------------------------------------------------------------
// CLI
// ---------------------------------------------------------------------------------------------

const USAGE = `usage: node --import tsx test/kafka/broker.ts fetch
       node --import tsx test/kafka/broker.ts start [--brokers 1|3] [--dir D]`;

async function main(argv: string[]): Promise<void> {
  const [cmd, ...rest] = argv;
  if (cmd === 'fetch') {
    console.log(await prepareKafka());
    return;
  }
  if (cmd !== 'start') {
    console.error(USAGE);
    process.exit(2);
  }
  let brokers: 1 | 3 = 1;
  let dir: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === '--brokers' && (rest[i + 1] === '1' || rest[i + 1] === '3')) brokers = Number(rest[++i]) as 1 | 3;
    else if (a === '--dir' && rest[i + 1]) dir = path.resolve(rest[++i]!);
    else {
      console.error(`bad argument ${a}\n${USAGE}`);
      process.exit(2);
    }
  }
  const t0 = Date.now();
  const cluster = await startKafka({ brokers, dir });
  console.log(`kafka ${kafkaVersion()}: ${brokers} broker(s) up in ${Date.now() - t0} ms`);
  console.log(`bootstrap=${cluster.bootstrap}`);
  console.log(`pids=${cluster.pidFile}`);
  console.log(`dir=${cluster.logDir}`);
  console.log('Ctrl-C (SIGINT) or SIGTERM stops it');
  const onSignal = (sig: NodeJS.Signals): void => {
    console.log(`${sig}: stopping`);
    cluster.stop().then(
      () => process.exit(0),
      (err) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  for (const sig of SIGNALS) process.once(sig, onSignal);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
