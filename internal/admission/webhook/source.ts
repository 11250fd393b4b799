/**
 * The webhook configurations the dispatchers read, held in memory and kept current from the fold
 * (kube's mutating/validating webhook configuration managers read informer caches). Start the
 * same way as the RBAC cache: subscribe first, load a consistent view, then apply the changes newer
 * than it. A change is applied in the step that folds it, so a configuration written by request N
 * takes effect for every request admitted after N's write was acknowledged on this replica.
 */
import type { Storage } from '../../storage/storage.ts';
import { followStore } from '../../storage/follow.ts';
import type { Change } from '../../storage/mvcc/materializer.ts';
import type { KubeObject } from '../../api/types.ts';
import { labelSelectorFromObject, type LabelSelector, type LabelSelectorObject } from '../../selectors/label-selector.ts';

export const ADMISSION_GROUP = 'admissionregistration.k8s.io';
export type WebhookType = 'mutating' | 'validating';
const RESOURCE: Record<WebhookType, string> = { mutating: 'mutatingwebhookconfigurations', validating: 'validatingwebhookconfigurations' };

export interface RuleWithOperations {
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  scope: string;
}

/** One webhook of a configuration, with its selectors parsed once (kube's WebhookAccessor). */
export interface Webhook {
  /** `<configuration>/<webhook>/<index>`: kube's accessor UID, the key of reinvocation state. */
  uid: string;
  configurationName: string;
  name: string;
  rules: RuleWithOperations[];
  failurePolicy: 'Fail' | 'Ignore';
  matchPolicy: 'Exact' | 'Equivalent';
  sideEffects: string;
  timeoutSeconds: number;
  admissionReviewVersions: string[];
  reinvocationPolicy: 'Never' | 'IfNeeded';
  clientConfig: { url?: string; service?: { namespace: string; name: string; path?: string; port: number }; caBundle?: string };
  /** Parsed selectors, or the error parsing gave (kube answers it as an internal error on match). */
  namespaceSelector: LabelSelector | Error;
  objectSelector: LabelSelector | Error;
}

function parseSelector(s: unknown): LabelSelector | Error {
  try {
    return labelSelectorFromObject((s ?? {}) as LabelSelectorObject);
  } catch (e) {
    return e as Error;
  }
}

/** The webhooks of one stored configuration, in their order. */
export function webhooksOfConfiguration(o: KubeObject): Webhook[] {
  const name = o.metadata.name ?? '';
  const hooks = Array.isArray(o.webhooks) ? (o.webhooks as Record<string, any>[]) : [];
  return hooks.map((w, i) => ({
    uid: `${name}/${w.name}/${i}`,
    configurationName: name,
    name: String(w.name ?? ''),
    rules: (w.rules ?? []).map((r: any) => ({ operations: r.operations ?? [], apiGroups: r.apiGroups ?? [], apiVersions: r.apiVersions ?? [], resources: r.resources ?? [], scope: r.scope ?? '*' })),
    failurePolicy: w.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    matchPolicy: w.matchPolicy === 'Exact' ? 'Exact' : 'Equivalent',
    sideEffects: String(w.sideEffects ?? ''),
    timeoutSeconds: typeof w.timeoutSeconds === 'number' ? w.timeoutSeconds : 10,
    admissionReviewVersions: w.admissionReviewVersions ?? [],
    reinvocationPolicy: w.reinvocationPolicy === 'IfNeeded' ? 'IfNeeded' : 'Never',
    clientConfig: w.clientConfig ?? {},
    namespaceSelector: parseSelector(w.namespaceSelector),
    objectSelector: parseSelector(w.objectSelector),
  }));
}

export class WebhookSource {
  private readonly configs: Record<WebhookType, Map<string, Webhook[]>> = { mutating: new Map(), validating: new Map() };
  /** The flattened, name-ordered lists; rebuilt lazily after a change. */
  private readonly sorted: Record<WebhookType, Webhook[] | null> = { mutating: null, validating: null };
  /**
   * What the matcher and the client read besides the configurations, followed the same way (kube
   * reads them from informers): each Namespace's labels, and the Services a `service` reference
   * may name.
   */
  private readonly namespaces = new Map<string, Record<string, string>>();
  private readonly services = new Map<string, KubeObject>();
  private unsubscribe: (() => void) | null = null;

  /** Load everything and follow the fold. Resolves once the source is current. */
  async start(storage: Storage): Promise<void> {
    this.unsubscribe = await followStore(storage, {
      resources: [{ group: ADMISSION_GROUP, resource: RESOURCE.mutating }, { group: ADMISSION_GROUP, resource: RESOURCE.validating }, { group: '', resource: 'namespaces' }, { group: '', resource: 'services' }],
      wants: (key) => key.group === ADMISSION_GROUP || (key.group === '' && (key.resource === 'namespaces' || key.resource === 'services')),
      load: (r, json) => {
        const obj = JSON.parse(json.toString('utf8')) as KubeObject;
        if (r.group === '') this.putCore(r.resource, obj);
        else this.put(r.resource === RESOURCE.mutating ? 'mutating' : 'validating', obj);
      },
      apply: (c) => this.apply(c),
    });
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /**
   * The webhooks of every configuration of a type: configurations in name order (kube's
   * configuration managers sort them so), each configuration's webhooks in their order.
   */
  webhooks(type: WebhookType): Webhook[] {
    let list = this.sorted[type];
    if (!list) {
      const names = [...this.configs[type].keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      list = this.sorted[type] = names.flatMap((n) => this.configs[type].get(n)!);
    }
    return list;
  }

  /** A Namespace's labels ({} when it has none), or undefined when it does not exist. */
  namespaceLabels(name: string): Record<string, string> | undefined {
    return this.namespaces.get(name);
  }

  /** A Service as stored, or undefined. */
  service(namespace: string, name: string): KubeObject | undefined {
    return this.services.get(`${namespace}/${name}`);
  }

  private putCore(resource: string, o: KubeObject): void {
    if (resource === 'namespaces') this.namespaces.set(o.metadata.name ?? '', o.metadata.labels ?? {});
    else this.services.set(`${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`, o);
  }

  private apply(c: Change): void {
    if (c.key.group === '') {
      if (c.type !== 'DELETED') this.putCore(c.key.resource, JSON.parse(c.object.toString('utf8')) as KubeObject);
      else if (c.key.resource === 'namespaces') this.namespaces.delete(c.key.name);
      else this.services.delete(`${c.key.namespace}/${c.key.name}`);
      return;
    }
    const type = (Object.keys(RESOURCE) as WebhookType[]).find((t) => RESOURCE[t] === c.key.resource);
    if (!type) return;
    if (c.type === 'DELETED') {
      this.configs[type].delete(c.key.name);
      this.sorted[type] = null;
    } else this.put(type, JSON.parse(c.object.toString('utf8')) as KubeObject);
  }

  private put(type: WebhookType, o: KubeObject): void {
    this.configs[type].set(o.metadata.name ?? '', webhooksOfConfiguration(o));
    this.sorted[type] = null;
  }
}
