/**
 * kafkajs, loaded on first use (the embedded path never pays for it), with one of its warnings
 * dropped. kafkajs 2.2.4 (the newest) arms its request queue's throttle check with
 * `setTimeout(…, throttledUntil - Date.now())` while throttledUntil is still -1: a negative delay,
 * which every Node clamps to 1 ms and which Node ≥ 23 also reports, once per process, as
 * "TimeoutNegativeWarning: -1795696593661 is a negative number" on stderr (issue 14 moved the
 * runtime to Node 24). The behaviour is the same as on Node 20, so the warning is noise to an
 * operator. Only that warning raised from kafkajs' own code is dropped; every other warning goes to
 * the listeners that were there before (Node's printer), as it did. (Node reports only the first
 * negative delay of a process; kafkajs' comes first in every Kafka-mode process, so a later one
 * went unreported before this filter too.)
 */
import type * as Kafkajs from 'kafkajs';

/** Marks the process whose warnings are already filtered (loadKafkajs may run several times). */
const FILTERED = Symbol.for('kube-apiserver.kafkajs-warning-filter');

/** A TimeoutNegativeWarning whose stack runs through kafkajs' sources. */
export function isKafkajsNegativeTimeout(w: Error): boolean {
  return w.name === 'TimeoutNegativeWarning' && /[\\/]node_modules[\\/]kafkajs[\\/]/.test(w.stack ?? '');
}

/** Put the filter in front of the process's warning listeners (once per process). */
export function filterKafkajsWarnings(): void {
  const proc = process as NodeJS.Process & { [FILTERED]?: true };
  if (proc[FILTERED]) return;
  proc[FILTERED] = true;
  const before = process.listeners('warning');
  process.removeAllListeners('warning');
  process.on('warning', (w: Error) => {
    if (isKafkajsNegativeTimeout(w)) return;
    for (const l of before) l(w);
  });
}

export async function loadKafkajs(): Promise<typeof Kafkajs> {
  filterKafkajsWarnings();
  return import('kafkajs');
}
