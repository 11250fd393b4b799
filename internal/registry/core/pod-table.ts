/**
 * The Pod Table, as kube-apiserver 1.24's printPod (pkg/printers/internalversion/printers.go):
 * NAME READY STATUS RESTARTS AGE, and with -o wide IP NODE NOMINATED NODE READINESS GATES.
 *
 * STATUS worked examples: a new Pod reads `Pending`; status.reason wins over the phase
 * (`Evicted`); the first unfinished init container gives `Init:0/2`, `Init:CrashLoopBackOff` or
 * `Init:ExitCode:1`; else the last container with a waiting/terminated reason gives it
 * (`ContainerCreating`, `Completed`, `ExitCode:2`, `Signal:9`); a deleting Pod reads
 * `Terminating` (`Unknown` when its reason is NodeLost).
 */
import type { KubeObject } from '../../api/types.ts';
import type { TableColumn, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { humanDuration } from '../rest/human-duration.ts';
import descriptions from '../../schema/generated/descriptions/core_v1.json' with { type: 'json' };
import { type J, list, n, obj, s } from './pod-util.ts';

const doc = (type: string, field: string): string => (descriptions as Record<string, Record<string, string>>)[`io.k8s.api.core.v1.${type}`]?.[field] ?? '';
const col = (name: string, description: string, priority = 0): TableColumn => ({ name, type: 'string', description, priority });

const POD_COLUMNS: TableColumn[] = [
  NAME_COLUMN,
  col('Ready', 'The aggregate readiness state of this pod for accepting traffic.'),
  col('Status', 'The aggregate status of the containers in this pod.'),
  col('Restarts', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
  AGE_COLUMN,
  col('IP', doc('PodStatus', 'podIP'), 1),
  col('Node', doc('PodSpec', 'nodeName'), 1),
  col('Nominated Node', doc('PodStatus', 'nominatedNodeName'), 1),
  col('Readiness Gates', doc('PodSpec', 'readinessGates'), 1),
];

/** What printPod derives from the status: READY, STATUS, RESTARTS. */
export function podStatusCells(pod: KubeObject, now = Date.now()): { ready: string; reason: string; restarts: string } {
  const spec = obj(pod.spec) ?? {};
  const status = obj(pod.status) ?? {};
  let restarts = 0;
  let ready = 0;
  let lastRestart = '';
  let reason = s(status.reason) || s(status.phase);
  const noteRestart = (c: J): void => {
    const finished = s(obj(obj(c.lastState)?.terminated)?.finishedAt);
    if (finished && (!lastRestart || Date.parse(finished) > Date.parse(lastRestart))) lastRestart = finished;
  };
  let initializing = false;
  const inits = list(status.initContainerStatuses);
  for (let i = 0; i < inits.length; i++) {
    const c = inits[i]!;
    restarts += n(c.restartCount);
    noteRestart(c);
    const term = obj(obj(c.state)?.terminated);
    const waiting = obj(obj(c.state)?.waiting);
    if (term && n(term.exitCode) === 0) continue;
    if (term) reason = s(term.reason) ? `Init:${s(term.reason)}` : n(term.signal) ? `Init:Signal:${n(term.signal)}` : `Init:ExitCode:${n(term.exitCode)}`;
    else if (waiting && s(waiting.reason) && waiting.reason !== 'PodInitializing') reason = `Init:${s(waiting.reason)}`;
    else reason = `Init:${i}/${list(spec.initContainers).length}`;
    initializing = true;
    break;
  }
  if (!initializing) {
    restarts = 0;
    let hasRunning = false;
    const cs = list(status.containerStatuses);
    for (let i = cs.length - 1; i >= 0; i--) {
      const c = cs[i]!;
      restarts += n(c.restartCount);
      noteRestart(c);
      const st = obj(c.state) ?? {};
      const term = obj(st.terminated);
      if (s(obj(st.waiting)?.reason)) reason = s(obj(st.waiting)?.reason);
      else if (term && s(term.reason)) reason = s(term.reason);
      else if (term) reason = n(term.signal) ? `Signal:${n(term.signal)}` : `ExitCode:${n(term.exitCode)}`;
      else if (c.ready === true && obj(st.running)) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) {
      reason = list(status.conditions).some((c) => c.type === 'Ready' && c.status === 'True') ? 'Running' : 'NotReady';
    }
  }
  if (pod.metadata.deletionTimestamp) reason = s(status.reason) === 'NodeLost' ? 'Unknown' : 'Terminating';
  const restartsText = lastRestart ? `${restarts} (${humanDuration(now - Date.parse(lastRestart))} ago)` : String(restarts);
  return { ready: `${ready}/${list(spec.containers).length}`, reason, restarts: restartsText };
}

/** The wide columns: IP, NODE, NOMINATED NODE, READINESS GATES. */
function wideCells(pod: KubeObject): string[] {
  const spec = obj(pod.spec) ?? {};
  const status = obj(pod.status) ?? {};
  const gates = list(spec.readinessGates);
  let gatesText = '<none>';
  if (gates.length) {
    const conditions = list(status.conditions);
    const trueCount = gates.filter((g) => conditions.find((c) => c.type === g.conditionType)?.status === 'True').length;
    gatesText = `${trueCount}/${gates.length}`;
  }
  return [s(list(status.podIPs)[0]?.ip) || '<none>', s(spec.nodeName) || '<none>', s(status.nominatedNodeName) || '<none>', gatesText];
}

export const podTable: TableConvertor = {
  columns: POD_COLUMNS,
  cells: (pod) => {
    const c = podStatusCells(pod);
    return [pod.metadata.name ?? '', c.ready, c.reason, c.restarts, creationTimestampCell(pod), ...wideCells(pod)];
  },
  rowConditions: (pod) => {
    const phase = s(obj(pod.status)?.phase);
    if (phase === 'Succeeded') return [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
    if (phase === 'Failed') return [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
    return undefined;
  },
};
