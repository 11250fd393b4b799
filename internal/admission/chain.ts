/**
 * Admission: mutating plugins run in the verb handler before the strategy; validating plugins run
 * after the strategy's prepare+validate, on the final object (kube-apiserver's order). Plugins
 * throw ApiError to reject. Webhooks plug in here as plugins in a later issue.
 */
import type { KubeObject, UserInfo } from '../api/types.ts';
import type { KindDescriptor } from '../registry/rest/strategy.ts';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE';

export interface AdmissionAttributes {
  operation: AdmissionOperation;
  kind: KindDescriptor;
  subresource: string;
  namespace: string;
  name: string;
  /** The object being written (CREATE/UPDATE); mutating plugins may change it. */
  object: KubeObject | null;
  oldObject: KubeObject | null;
  user: UserInfo;
  dryRun: boolean;
}

export interface MutatingPlugin {
  readonly name: string;
  admit(a: AdmissionAttributes): Promise<void> | void;
}

export interface ValidatingPlugin {
  readonly name: string;
  validate(a: AdmissionAttributes): Promise<void> | void;
}

export class AdmissionChain {
  constructor(readonly mutating: MutatingPlugin[] = [], readonly validating: ValidatingPlugin[] = []) {}

  async admit(a: AdmissionAttributes): Promise<void> {
    for (const p of this.mutating) await p.admit(a);
  }

  async validate(a: AdmissionAttributes): Promise<void> {
    for (const p of this.validating) await p.validate(a);
  }
}
