/**
 * YAML nested deeper than the main thread's stack can parse. The `yaml` package composes
 * collections recursively, about a kilobyte of stack per level, so on the main thread it
 * overflows at ~1,000 levels (V8's default stack), while go-yaml, and so kube-apiserver, accepts
 * flow collections up to 10,000 levels. Such a document is parsed again on a worker thread whose
 * stack is sized for that (Node allocates a worker's stack as asked; raising the main thread's
 * with --stack-size crashed the process on a 5,000-level body: V8's limit then passes the 8 MiB
 * the OS gives the main thread), synchronously
 * (the caller waits on a shared flag, then takes the answer from the port). The value comes back
 * as JSON text, read with this server's own iterative parser (a structured clone of a value that
 * deep would recurse again). Only bodies that overflowed take this path.
 */
import { Worker, MessageChannel, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { createRequire } from 'node:module';

/** A worker stack for go-yaml's 10,000 levels with room to spare (~1 KiB per level, measured). */
const WORKER_STACK_MB = 64;
/** How long a parse may take before the body is refused as too deep. */
const PARSE_TIMEOUT_MS = 10_000;

/** The worker: parse with the options given (go-yaml v2's tags: no timestamps), answer JSON text or the error. */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const YAML = require(workerData.yaml);
const port = workerData.port;
const tags = (all) => all.filter((t) => !(typeof t === 'object' && (t.tag === 'tag:yaml.org,2002:timestamp' || t.format === 'TIME')));
port.on('message', ({ text, all, signal }) => {
  let answer;
  try {
    const opts = { uniqueKeys: false, version: '1.1', customTags: tags };
    let value;
    if (all) {
      const doc = YAML.parseAllDocuments(text, opts)[0];
      const err = doc && doc.errors[0];
      if (err) throw err;
      value = doc ? doc.toJS() : null;
    } else value = YAML.parse(text, opts);
    answer = { json: value === undefined ? 'null' : JSON.stringify(value) };
  } catch (e) {
    answer = { error: String(e && e.message || e) };
  }
  port.postMessage(answer);
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
});
`;

let port: MessagePort | null = null;

function workerPort(): MessagePort {
  if (port) return port;
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { port: port2, yaml: createRequire(import.meta.url).resolve('yaml') }, transferList: [port2], resourceLimits: { stackSizeMb: WORKER_STACK_MB } });
  worker.unref();
  port1.unref();
  worker.on('error', () => (port = null));
  worker.on('exit', () => (port = null));
  return (port = port1);
}

/**
 * Parse `text` as YAML 1.1 on the deep-stack worker (`firstDocument`: the first of a
 * multi-document stream, as apply reads it): the value as JSON text, to read with parseJson
 * (json-parse.ts), which applies encoding/json's depth limit. Throws Error with the parser's
 * message (a stack overflow included, if even the worker's stack is too small) or on timeout.
 */
export function parseDeepYaml(text: string, firstDocument = false): string {
  const p = workerPort();
  const signal = new Int32Array(new SharedArrayBuffer(4));
  p.postMessage({ text, all: firstDocument, signal });
  if (Atomics.wait(signal, 0, 0, PARSE_TIMEOUT_MS) === 'timed-out') throw new Error('Maximum call stack size exceeded (YAML parse timed out)');
  const answer = receiveMessageOnPort(p)?.message as { json?: string; error?: string } | undefined;
  if (!answer || answer.error !== undefined) throw new Error(answer?.error ?? 'Maximum call stack size exceeded (no answer from the YAML worker)');
  return answer.json!;
}
