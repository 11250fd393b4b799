/**
 * MutatingWebhookConfiguration and ValidatingWebhookConfiguration
 * (admissionregistration.k8s.io/v1, cluster-scoped), after Kubernetes 1.24.17:
 * pkg/registry/admissionregistration/{mutating,validating}webhookconfiguration/strategy.go
 * (generation 1 on create, +1 when webhooks change: the kind's `hasGeneration`), the v1
 * defaults and validation (validation.ts) and printMutatingWebhook/printValidatingWebhook.
 */
import type { KubeObject } from '../../api/types.ts';
import type { KindDescriptor, Strategy, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { defaultWebhooks, validateConfiguration, validateConfigurationUpdate, webhooksOf } from './validation.ts';

export const ADMISSION_GROUP = 'admissionregistration.k8s.io';

function strategy(mutating: boolean): Strategy {
  return {
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    defaults: (o: KubeObject) => defaultWebhooks(o, mutating),
    validate: (o: KubeObject) => validateConfiguration(o, mutating),
    validateUpdate: (n: KubeObject, old: KubeObject) => validateConfigurationUpdate(n, old, mutating),
  };
}

/** The printers' columns: name, the number of webhooks, age. */
const table: TableConvertor = {
  columns: [NAME_COLUMN, { name: 'Webhooks', type: 'integer', description: 'Webhooks indicates the number of webhooks registered in this configuration', priority: 0 }, AGE_COLUMN],
  cells: (o) => [o.metadata.name ?? '', webhooksOf(o).length, creationTimestampCell(o)],
};

export const mutatingWebhookConfigurationKind: KindDescriptor = {
  group: ADMISSION_GROUP,
  versions: ['v1'],
  resource: 'mutatingwebhookconfigurations',
  singular: 'mutatingwebhookconfiguration',
  kind: 'MutatingWebhookConfiguration',
  listKind: 'MutatingWebhookConfigurationList',
  namespaced: false,
  shortNames: [],
  categories: ['api-extensions'],
  strategy: strategy(true),
  table,
  deleteReturns: 'Status',
  hasGeneration: true,
};

export const validatingWebhookConfigurationKind: KindDescriptor = {
  ...mutatingWebhookConfigurationKind,
  resource: 'validatingwebhookconfigurations',
  singular: 'validatingwebhookconfiguration',
  kind: 'ValidatingWebhookConfiguration',
  listKind: 'ValidatingWebhookConfigurationList',
  strategy: strategy(false),
};
