/**
 * Service (core/v1), after Kubernetes 1.24: the strategy (pkg/registry/core/service/strategy.go),
 * the Table (printService) and the descriptor. Defaulting is in service-spec.ts, validation in
 * service-validation.ts, the ClusterIP/NodePort allocation hooks in service-hooks.ts.
 *
 * This server is single-stack: one `--service-cluster-ip-range`, whose family is the only one
 * configured (as kube-apiserver with one CIDR).
 */
import { serviceProxySubresource } from './pod-connect.ts';
import type { KubeObject } from '../../api/types.ts';
import type { KindDescriptor, Strategy, TableColumn, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell, isPlainObject } from './configmap.ts';
import { SERVICE_ORDER, type ServiceSpec, arr, defaultService, dropEmpty, dropTypeDependentFields, num, orderInPlace, serviceSpec, str } from './service-spec.ts';
import { validateService, validateServiceStatus, validateServiceUpdate } from './service-validation.ts';
import { ServiceAllocators } from './service-hooks.ts';

export { DEFAULT_SERVICE_CLUSTER_IP_RANGE, DEFAULT_SERVICE_NODE_PORT_RANGE, kubernetesServiceIP, defaultService } from './service-spec.ts';
export { validateService, validateServiceUpdate } from './service-validation.ts';

export const serviceStrategy: Strategy = {
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  defaults: defaultService,
  prepareForCreate(obj) {
    obj.status = { loadBalancer: {} };
  },
  prepareForUpdate(newObj, oldObj) {
    newObj.status = oldObj.status ?? { loadBalancer: {} };
    dropTypeDependentFields(serviceSpec(newObj), serviceSpec(oldObj));
  },
  validate: validateService,
  validateUpdate: validateServiceUpdate,
  canonicalize(obj) {
    const s = serviceSpec(obj);
    dropEmpty(s);
    // kube stores internalTrafficPolicy on ExternalName services but drops it on every read
    // (defaultOnReadInternalTrafficPolicy); not storing it reads the same.
    if (s.type === 'ExternalName') delete s.internalTrafficPolicy;
    orderInPlace(obj, SERVICE_ORDER);
  },
};


// ---------------------------------------------------------------------------------------------
// table (printService in pkg/printers/internalversion/printers.go)

const col = (name: string, description: string, priority = 0): TableColumn => ({ name, type: 'string', description, priority });

/** ServiceSpec/ServicePort descriptions as kube's Table columns carry them. */
const SERVICE_COLUMNS: TableColumn[] = [
  NAME_COLUMN,
  col(
    'Type',
    'type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer. "ClusterIP" allocates a cluster-internal IP address for load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is "None", no virtual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. "NodePort" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. "LoadBalancer" builds on NodePort and creates an external load-balancer (if supported in the current cloud) which routes to the same endpoints as the clusterIP. "ExternalName" aliases this service to the specified externalName. Several other fields do not apply to ExternalName services. More info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types',
  ),
  col(
    'Cluster-IP',
    'clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above).  Valid values are "None", empty string (""), or a valid IP address. Setting this to "None" makes a "headless service" (no virtual IP), which is useful when direct endpoint connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will fail. This field will be wiped when updating a Service to type ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies',
  ),
  col(
    'External-IP',
    'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic arrives at a node with this IP.  A common example is external load-balancers that are not part of the Kubernetes system.',
  ),
  col('Port(s)', 'The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies'),
  AGE_COLUMN,
  col(
    'Selector',
    'Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/',
    1,
  ),
];

/** getServiceExternalIP (non-wide: load balancer names longer than 16 characters are cut). */
function externalIPCell(obj: KubeObject): string {
  const s = serviceSpec(obj);
  const ext = arr(s.externalIPs);
  switch (s.type) {
    case 'ClusterIP':
    case 'NodePort':
      return ext.length ? ext.join(',') : '<none>';
    case 'LoadBalancer': {
      const status = isPlainObject(obj.status) && isPlainObject(obj.status.loadBalancer) ? obj.status.loadBalancer : {};
      const names = [...new Set(arr(status.ingress as { ip?: string; hostname?: string }[]).map((i) => str(i?.ip) || str(i?.hostname)).filter((x) => x))].sort();
      let lb = names.join(',');
      if (lb.length > 16) lb = `${lb.slice(0, 13)}...`;
      if (ext.length) return [...(lb ? lb.split(',') : []), ...ext].join(',');
      return lb || '<pending>';
    }
    case 'ExternalName':
      return str(s.externalName);
    default:
      return '<unknown>';
  }
}

const portsCell = (s: ServiceSpec): string =>
  arr(s.ports)
    .map((p) => (num(p?.nodePort) > 0 ? `${num(p.port)}:${p.nodePort}/${str(p.protocol)}` : `${num(p?.port)}/${str(p?.protocol)}`))
    .join(',') || '<none>';

/** labels.FormatLabels: sorted k=v pairs, "<none>" when empty. */
const selectorCell = (s: ServiceSpec): string => {
  const sel = isPlainObject(s.selector) ? s.selector : {};
  const keys = Object.keys(sel).sort();
  return keys.length ? keys.map((k) => `${k}=${sel[k]}`).join(',') : '<none>';
};

export const serviceTable: TableConvertor = {
  columns: SERVICE_COLUMNS,
  cells: (obj) => {
    const s = serviceSpec(obj);
    return [obj.metadata.name ?? '', str(s.type), arr(s.clusterIPs)[0] ?? '<none>', externalIPCell(obj), portsCell(s), creationTimestampCell(obj), selectorCell(s)];
  },
};

export const serviceKind: KindDescriptor = {
  group: '',
  versions: ['v1'],
  resource: 'services',
  singular: 'service',
  kind: 'Service',
  listKind: 'ServiceList',
  namespaced: true,
  nameFormat: 'dns1035',
  shortNames: ['svc'],
  categories: ['all'],
  strategy: serviceStrategy,
  hooks: (deps) => new ServiceAllocators(deps),
  subresources: [
    serviceProxySubresource,
    {
      name: 'status',
      verbs: ['get', 'update', 'patch'],
      strategy: {
        prepareForUpdate(newObj, oldObj) {
          // serviceStatusStrategy: the spec is the stored one; status (and metadata) come from the request.
          newObj.spec = structuredClone(oldObj.spec);
          if (!isPlainObject(newObj.status)) newObj.status = { loadBalancer: {} };
          orderInPlace(newObj, SERVICE_ORDER);
        },
        validateUpdate: (newObj) => validateServiceStatus(newObj),
      },
    },
  ],
  table: serviceTable,
  deleteReturns: 'Object',
};

