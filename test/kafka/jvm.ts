/**
 * The Java side of the Kafka test harness: which Kafka release, where its jars are (fetched by
 * fetch.sh), the JVM flags, and the class-data-sharing (AppCDS) archive that halves a broker's
 * start-up CPU. broker.ts builds clusters on top of this.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');

/**
 * Flags of every Kafka JVM (brokers and the storage tool). The heap cap keeps three brokers well
 * inside the machine; SerialGC and C1-only JIT (TieredStopAtLevel=1) cut start-up CPU from ~4.1 s
 * to ~2.7 s per broker, which matters more on 2 shared cores than peak throughput;
 * -XX:-UsePerfData avoids hsperfdata files in /tmp. A CDS archive must be used with the flags it
 * was dumped with, so its name hashes these.
 */
export const JVM_OPTS: readonly string[] = [
  '-Xms64m',
  '-Xmx512m',
  '-XX:+UseSerialGC',
  '-XX:TieredStopAtLevel=1',
  '-Xshare:auto',
  '-XX:-UsePerfData',
  '-Djava.awt.headless=true',
];

/** The Kafka release in use: $KAFKA_VERSION, else the one pinned in test/kafka/pom.xml. */
export function kafkaVersion(): string {
  if (process.env.KAFKA_VERSION) return process.env.KAFKA_VERSION;
  const m = /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(readFileSync(path.join(HERE, 'pom.xml'), 'utf8'));
  if (!m) throw new Error('test/kafka/pom.xml has no <kafka.version>');
  return m[1]!;
}

/** Where fetch.sh puts the jars of `version` (same defaults and overrides as fetch.sh). */
export function kafkaLibsDir(version = kafkaVersion()): string {
  const cache = process.env.KAFKA_CACHE_DIR ?? path.join(ROOT, '.cache', 'kafka');
  return path.join(cache, version, 'libs');
}

/**
 * The libs directory, running fetch.sh first when its jars are missing (its output goes to
 * stderr). Throws if the fetch fails.
 */
export async function ensureKafkaJars(): Promise<string> {
  const version = kafkaVersion();
  const libs = kafkaLibsDir(version);
  if (existsSync(path.join(libs, '.complete'))) return libs;
  const child = spawn('bash', [path.join(HERE, 'fetch.sh')], {
    env: { ...process.env, KAFKA_VERSION: version },
    stdio: ['ignore', process.stderr, process.stderr],
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0 || !existsSync(path.join(libs, '.complete'))) {
    throw new Error(`test/kafka/fetch.sh failed (exit ${code}): Kafka ${version} jars are not in ${libs}`);
  }
  return libs;
}

/** `java` of $JAVA_HOME, else the one on PATH. */
export function javaBin(): string {
  return process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
}

/**
 * Where the dynamic AppCDS archive for these jars, this JDK and JVM_OPTS lives (beside libs/).
 * The name changes when any of them does, so a stale archive is never used (the JVM would reject
 * it anyway, with a warning, and start without it). Undefined when java cannot be found.
 */
export function cdsArchivePath(libs: string): string | undefined {
  const java = resolveOnPath(javaBin());
  if (!java) return undefined;
  const h = createHash('sha256');
  h.update(`${java}\0${statSync(java).mtimeMs}\0${JVM_OPTS.join(' ')}\0`);
  h.update(readdirSync(libs).sort().join('\0'));
  return path.join(path.dirname(libs), `cds-${h.digest('hex').slice(0, 16)}.jsa`);
}

/** True when util-linux setpriv (for --pdeathsig) can be run. */
export function hasSetpriv(): boolean {
  return spawnSync('setpriv', ['--version'], { stdio: 'ignore' }).status === 0;
}

function resolveOnPath(cmd: string): string | undefined {
  const dirs = cmd.includes('/') ? [''] : (process.env.PATH ?? '').split(':');
  for (const d of dirs) {
    const p = d ? path.join(d, cmd) : cmd;
    try {
      if (statSync(p).isFile()) return realpathSync(p);
    } catch {
      // not here
    }
  }
  return undefined;
}
