/**
 * ServiceAccount (core/v1), after pkg/registry/core/serviceaccount/strategy.go and
 * ValidateServiceAccount / ValidateServiceAccountUpdate in pkg/apis/core/validation (Kubernetes
 * 1.24). Kube validates nothing beyond ObjectMeta (DNS-1123 subdomain names, which the store
 * checks); the strategy's one rule is cleanSecretReferences: each `secrets` entry keeps only its
 * name. The `serviceaccounts/token` subresource (TokenRequest, serviceaccount-token.ts) is served
 * when the server has a token issuer (KindOptions.serviceAccountTokens).
 */
import type { KubeObject } from '../../api/types.ts';
import type { FieldError } from '../../api/field-errors.ts';
import type { KindDescriptor, Strategy, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell, isPlainObject } from './configmap.ts';
import { AUTHENTICATION_GROUP, tokenSubresource } from './serviceaccount-token.ts';

/** Name of the account the serviceaccounts controller keeps in every active namespace. */
export const DEFAULT_SERVICE_ACCOUNT_NAME = 'default';

/**
 * cleanSecretReferences (PrepareForCreate and PrepareForUpdate): every ObjectReference in
 * `secrets` is replaced by one holding only its name (an entry without a name becomes `{}`).
 */
export function cleanSecretReferences(obj: KubeObject): void {
  if (!Array.isArray(obj.secrets)) return;
  obj.secrets = obj.secrets.map((s: unknown) => {
    const name = isPlainObject(s) ? s.name : undefined;
    return typeof name === 'string' && name !== '' ? { name } : {};
  });
}

/** ValidateServiceAccount minus ObjectMeta (the store validates metadata): nothing else. */
export function validateServiceAccount(_obj: KubeObject): FieldError[] {
  return [];
}

/** ValidateServiceAccountUpdate minus ObjectMeta(Update): ValidateServiceAccount of the new object. */
export function validateServiceAccountUpdate(newObj: KubeObject, _oldObj: KubeObject): FieldError[] {
  return validateServiceAccount(newObj);
}

export const serviceAccountStrategy: Strategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  prepareForCreate: cleanSecretReferences,
  prepareForUpdate: (newObj) => cleanSecretReferences(newObj),
  validate: validateServiceAccount,
  validateUpdate: validateServiceAccountUpdate,
};

/** printServiceAccount: name, the number of `secrets` entries, age. */
export const serviceAccountTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    {
      // printers.go declares Secrets a string column although its cells are integers.
      name: 'Secrets',
      type: 'string',
      description:
        'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. Pods are only limited to this list if this service account has a "kubernetes.io/enforce-mountable-secrets" annotation set to "true". This field should not be used to find auto-generated service account token secrets for use outside of pods. Instead, tokens can be requested directly using the TokenRequest API, or service account token secrets can be manually created. More info: https://kubernetes.io/docs/concepts/configuration/secret',
      priority: 0,
    },
    AGE_COLUMN,
  ],
  cells: (obj) => [obj.metadata.name ?? '', Array.isArray(obj.secrets) ? obj.secrets.length : 0, creationTimestampCell(obj)],
};

export const serviceAccountKind: KindDescriptor = {
  group: '',
  versions: ['v1'],
  resource: 'serviceaccounts',
  singular: 'serviceaccount',
  kind: 'ServiceAccount',
  listKind: 'ServiceAccountList',
  namespaced: true,
  shortNames: ['sa'],
  strategy: serviceAccountStrategy,
  table: serviceAccountTable,
  // genericregistry.Store{ReturnDeletedObject: true} in pkg/registry/core/serviceaccount/storage.
  deleteReturns: 'Object',
  // kube-apiserver 1.24 always has a token issuer (its flags are required); this server's has one
  // unless the registry is built without (unit tests).
  forOptions: (options) => (options.serviceAccountTokens ? { ...serviceAccountKind, subresources: [tokenSubresource(options.serviceAccountTokens)] } : serviceAccountKind),
  optionalSubresourceKinds: [{ group: AUTHENTICATION_GROUP, version: 'v1', kind: 'TokenRequest' }],
};
