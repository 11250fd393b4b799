/** The events.k8s.io group's kinds. */
import type { KindDescriptor } from '../rest/strategy.ts';
import { eventsEventKind } from './event.ts';

export { eventsEventKind };

export const eventsKinds: KindDescriptor[] = [eventsEventKind];
