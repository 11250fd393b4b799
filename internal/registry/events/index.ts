/** The events.k8s.io group's kinds. */
import type { KindDescriptor } from '../rest/strategy.ts';
import { eventsEventKind, eventsV1beta1EventKind } from './event.ts';

export { eventsEventKind, eventsV1beta1EventKind };

/** v1 first: it is the group's preferred version. */
export const eventsKinds: KindDescriptor[] = [eventsEventKind, eventsV1beta1EventKind];
