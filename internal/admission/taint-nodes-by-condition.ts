/**
 * TaintNodesByCondition (plugin/pkg/admission/nodetaint), on by default in 1.24: a Node created
 * without it gets the node.kubernetes.io/not-ready:NoSchedule taint, so no Pod is scheduled onto it
 * before the node lifecycle controller sees it Ready and removes the taint.
 */
import type { MutatingPlugin } from './chain.ts';
import { addNotReadyTaint } from '../registry/core/node.ts';

export const taintNodesByCondition: MutatingPlugin = {
  name: 'TaintNodesByCondition',
  admit(a) {
    if (a.operation !== 'CREATE' || a.subresource || !a.object || a.kind.group !== '' || a.kind.resource !== 'nodes') return;
    addNotReadyTaint(a.object);
  },
};
