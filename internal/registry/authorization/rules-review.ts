/**
 * authorization.k8s.io/v1 SelfSubjectRulesReview (pkg/registry/authorization/selfsubjectrulesreview):
 * the requester's rules in `spec.namespace`, from the authorizer's rule resolver. Kube answers a
 * fresh object, so neither the spec nor the request's metadata (managedFields) is echoed.
 */
import type { KubeObject } from '../../api/types.ts';
import { badRequest } from '../../api/errors.ts';
import type { Authorizer } from '../../auth/authz.ts';
import type { VirtualCreateContext, VirtualKind } from '../rest/strategy.ts';
import { Decoder, reviewKind } from './access-review.ts';

const KIND = 'SelfSubjectRulesReview';

function rulesReviewer(authorizer: Authorizer): VirtualKind {
  return {
    async create(ctx: VirtualCreateContext, obj: KubeObject): Promise<KubeObject> {
      const spec = obj.spec;
      if (spec !== undefined && spec !== null && (typeof spec !== 'object' || Array.isArray(spec))) {
        throw badRequest(`${KIND} in version "v1" cannot be handled as a ${KIND}: json: cannot unmarshal ${Array.isArray(spec) ? 'array' : typeof spec === 'boolean' ? 'bool' : typeof spec} into Go struct field ${KIND}.spec of type v1.SelfSubjectRulesReviewSpec`);
      }
      const namespace = spec ? new Decoder(KIND, spec as Record<string, unknown>, 'SelfSubjectRulesReviewSpec', 'spec.').str('namespace') : '';
      if (!namespace) throw badRequest('no namespace on request');
      const rules = authorizer.rulesFor ? await authorizer.rulesFor(ctx.user, namespace) : { resourceRules: [], nonResourceRules: [], incomplete: true };
      const status: Record<string, unknown> = { resourceRules: rules.resourceRules, nonResourceRules: rules.nonResourceRules, incomplete: rules.incomplete };
      if (rules.evaluationError) status.evaluationError = rules.evaluationError;
      return { kind: obj.kind, apiVersion: obj.apiVersion, metadata: { creationTimestamp: null }, spec: {}, status } as unknown as KubeObject;
    },
  };
}

/** SelfSubjectRulesReview: what may the requester do in a namespace? (`kubectl auth can-i --list`) */
export const selfSubjectRulesReviewKind = reviewKind(KIND, 'selfsubjectrulesreviews', false, (deps) => rulesReviewer(deps.authorizer));
