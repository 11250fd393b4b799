/** The core (legacy, group '') kinds served by the generic store. */
import type { KindDescriptor } from '../rest/strategy.ts';
import { namespaceKind } from './namespace.ts';
import { configMapKind } from './configmap.ts';
import { secretKind } from './secret.ts';
import { eventKind } from './event.ts';

export { namespaceKind, configMapKind, secretKind, eventKind };

export const coreKinds: KindDescriptor[] = [namespaceKind, configMapKind, secretKind, eventKind];
