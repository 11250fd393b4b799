/**
 * The Pod and Service connect subresources that reach a kubelet or a Pod (kube 1.24's LogREST,
 * ExecREST, AttachREST, PortForwardREST, ProxyREST and the Service ProxyREST), answered through the
 * HTTP layer's proxy: pod.LogLocation / streamLocation / PortForwardLocation / ResourceLocation and
 * the Service REST's ResourceLocation, with kube's errors (a container name to choose, a Pod with
 * no host, a missing Node reported as kube does, `address not allowed`, no endpoints).
 */
import type { KubeObject } from '../../api/types.ts';
import { badRequest, notFound, serviceUnavailable } from '../../api/errors.ts';
import type { ProxyLocation, SubresourceConnectContext, SubresourceDescriptor } from '../rest/strategy.ts';
import { goQuote } from '../../gocompat/quote.ts';
import { isGlobalUnicast, kubeletEndpoint, splitSchemeNamePort } from './node.ts';
import { list, obj, s } from './pod-util.ts';

const names = (cs: unknown): string[] => list(cs).map((c) => s(c.name));

/** validateContainer: the named container, or the only one; kube's 400s otherwise. */
export function validateContainer(container: string, pod: KubeObject): string {
  const spec = obj(pod.spec) ?? {};
  const name = s(pod.metadata.name);
  if (container) {
    const all = [...names(spec.containers), ...names(spec.initContainers), ...names(spec.ephemeralContainers)];
    if (!all.includes(container)) throw badRequest(`container ${container} is not valid for pod ${name}`);
    return container;
  }
  const containers = names(spec.containers);
  if (containers.length === 1) return containers[0]!;
  if (!containers.length) throw badRequest(`a container name must be specified for pod ${name}`);
  // podutil.VisitContainers order: init containers, containers, ephemeral containers.
  const all = [...names(spec.initContainers), ...containers, ...names(spec.ephemeralContainers)];
  throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${all.join(' ')}]`);
}

/** GetConnectionInfo of the Pod's node (kube reports a missing Node as `pods "<node>" not found`). */
async function kubelet(ctx: SubresourceConnectContext, nodeName: string): Promise<{ host: string; port: number }> {
  const node = await ctx.getCore('nodes', nodeName).catch((e) => {
    throw e?.status?.code === 404 ? notFound({ group: '', resource: 'pods' }, nodeName) : e;
  });
  return kubeletEndpoint(node);
}

const qs = (params: [string, string][]): string => (params.length ? `?${new URLSearchParams(params).toString()}` : '');

/** Integer log options (PodLogOptions' int64 fields): Go's ParseInt error as a 400. */
function intParam(q: URLSearchParams, key: string): string | undefined {
  const v = q.get(key);
  if (v === null) return undefined;
  if (!/^[+-]?\d+$/.test(v)) throw badRequest(`strconv.ParseInt: parsing ${goQuote(v)}: invalid syntax`);
  return String(BigInt(v));
}

/** pods/log: LogLocation (null: a Pod with no node, kube's empty stream). */
async function logLocation(ctx: SubresourceConnectContext): Promise<ProxyLocation | null> {
  const q = ctx.query;
  const ints = ['sinceSeconds', 'tailLines', 'limitBytes'].map((k) => [k, intParam(q, k)] as const);
  const pod = await ctx.get(ctx.name);
  const container = validateContainer(q.get('container') ?? '', pod);
  const nodeName = s(obj(pod.spec)?.nodeName);
  if (!nodeName) return null;
  const { host, port } = await kubelet(ctx, nodeName);
  const params: [string, string][] = [];
  for (const k of ['follow', 'previous', 'timestamps']) if (q.get(k) === 'true') params.push([k, 'true']);
  for (const [k, v] of ints) if (v !== undefined) params.push([k, v]);
  if (q.get('sinceTime')) params.push(['sinceTime', q.get('sinceTime')!]);
  params.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { scheme: 'https', host, port, mode: 'stream', path: `/containerLogs/${s(pod.metadata.namespace)}/${s(pod.metadata.name)}/${container}${qs(params)}` };
}

/** pods/exec, pods/attach (streamLocation) and pods/portforward (PortForwardLocation). */
function streamLocation(path: 'exec' | 'attach' | 'portForward'): (ctx: SubresourceConnectContext) => Promise<ProxyLocation> {
  return async (ctx) => {
    const pod = await ctx.get(ctx.name);
    const container = path === 'portForward' ? '' : validateContainer(ctx.query.get('container') ?? '', pod);
    const nodeName = s(obj(pod.spec)?.nodeName);
    if (!nodeName) throw badRequest(`pod ${ctx.name} does not have a host assigned`);
    const { host, port } = await kubelet(ctx, nodeName);
    const q = new URLSearchParams(ctx.query);
    q.delete('container');
    const rest = q.toString();
    return { scheme: 'https', host, port, mode: 'upgrade', path: `/${path}/${s(pod.metadata.namespace)}/${s(pod.metadata.name)}${container ? `/${container}` : ''}${rest ? `?${rest}` : ''}` };
  };
}

/** pods/proxy: pod.ResourceLocation (`[scheme:]name[:port]`, else the first container port). */
async function podProxyLocation(ctx: SubresourceConnectContext): Promise<ProxyLocation> {
  const parsed = splitSchemeNamePort(ctx.name);
  if (!parsed) throw badRequest(`invalid pod request ${goQuote(ctx.name)}`);
  const pod = await ctx.get(parsed.name);
  let port = parsed.port;
  if (!port) port = String(list(obj(pod.spec)?.containers).map((c) => list(c.ports)[0]?.containerPort).find((p) => p !== undefined) ?? '');
  const ip = s(list(obj(pod.status)?.podIPs)[0]?.ip);
  if (!ip || !isGlobalUnicast(ip)) throw badRequest('address not allowed');
  // A named port: Go looks it up in /etc/services (kube 1.24's handler panics on it; not served here).
  if (port && !/^\d+$/.test(port)) throw serviceUnavailable(`error trying to reach service: dial tcp: lookup port ${port}: unknown port`);
  return { scheme: parsed.scheme || 'http', host: ip, port: port ? Number(port) : 80 };
}

/** services/proxy: the Service REST's ResourceLocation (a port number names a service port; an endpoint address). */
async function serviceProxyLocation(ctx: SubresourceConnectContext): Promise<ProxyLocation> {
  const parsed = splitSchemeNamePort(ctx.name);
  if (!parsed) throw badRequest(`invalid service request ${goQuote(ctx.name)}`);
  let portName = parsed.port;
  if (/^[+-]?\d+$/.test(parsed.port)) {
    const svc = await ctx.get(parsed.name);
    const found = list(obj(svc.spec)?.ports).find((p) => Number(p.port) === Number(parsed.port));
    if (!found) throw serviceUnavailable(`no service port ${Number(parsed.port)} found for service ${goQuote(parsed.name)}`);
    portName = s(found.name);
  }
  // kube reports a missing Endpoints object as the Service not found.
  const eps = await ctx.getCore('endpoints', parsed.name).catch((e) => {
    throw e?.status?.code === 404 ? notFound({ group: '', resource: 'services' }, parsed.name) : e;
  });
  const subsets = list(eps.subsets);
  if (!subsets.length) throw serviceUnavailable(`no endpoints available for service ${goQuote(parsed.name)}`);
  // kube starts at a random subset and address; the first valid one here. isValidAddress: the
  // address names a Pod of this namespace that has the address's IP.
  const ns = s(eps.metadata.namespace);
  const valid = async (addr: Record<string, unknown>): Promise<boolean> => {
    const ref = obj(addr.targetRef);
    if (!ref || s(ref.namespace) !== ns) return false;
    const pod = await ctx.getCore('pods', s(ref.name)).catch(() => undefined);
    return list(obj(pod?.status)?.podIPs).some((p) => s(p.ip) === s(addr.ip));
  };
  for (const ss of subsets) {
    for (const p of list(ss.ports).filter((x) => s(x.name) === portName)) {
      for (const addr of list(ss.addresses)) if (await valid(addr)) return { scheme: parsed.scheme || 'http', host: s(addr.ip), port: Number(p.port) };
    }
  }
  throw serviceUnavailable(`no endpoints available for service ${goQuote(ctx.name)}`);
}

type Options = NonNullable<SubresourceDescriptor['connectQuery']>;

// The options kinds' query parameters as kube's OpenAPI describes them (their field docs).
const LOG_OPTIONS: Options = [
  { name: "container", type: 'string', description: "The container for which to stream logs. Defaults to only container if there is one container in the pod." },
  { name: "follow", type: 'boolean', description: "Follow the log stream of the pod. Defaults to false." },
  { name: "insecureSkipTLSVerifyBackend", type: 'boolean', description: "insecureSkipTLSVerifyBackend indicates that the apiserver should not confirm the validity of the serving certificate of the backend it is connecting to.  This will make the HTTPS connection between the apiserver and the backend insecure. This means the apiserver cannot verify the log data it is receiving came from the real kubelet.  If the kubelet is configured to verify the apiserver's TLS credentials, it does not mean the connection to the real kubelet is vulnerable to a man in the middle attack (e.g. an attacker could not intercept the actual log data coming from the real kubelet)." },
  { name: "limitBytes", type: 'integer', description: "If set, the number of bytes to read from the server before terminating the log output. This may not display a complete final line of logging, and may return slightly more or slightly less than the specified limit." },
  { name: "previous", type: 'boolean', description: "Return previous terminated container logs. Defaults to false." },
  { name: "sinceSeconds", type: 'integer', description: "A relative time in seconds before the current time from which to show logs. If this value precedes the time a pod was started, only logs since the pod start will be returned. If this value is in the future, no logs will be returned. Only one of sinceSeconds or sinceTime may be specified." },
  { name: "tailLines", type: 'integer', description: "If set, the number of lines from the end of the logs to show. If not specified, logs are shown from the creation of the container or sinceSeconds or sinceTime" },
  { name: "timestamps", type: 'boolean', description: "If true, add an RFC3339 or RFC3339Nano timestamp at the beginning of every line of log output. Defaults to false." },
];

const EXEC_OPTIONS: Options = [
  { name: "command", type: 'string', description: "Command is the remote command to execute. argv array. Not executed within a shell." },
  { name: "container", type: 'string', description: "Container in which to execute the command. Defaults to only container if there is only one container in the pod." },
  { name: "stderr", type: 'boolean', description: "Redirect the standard error stream of the pod for this call." },
  { name: "stdin", type: 'boolean', description: "Redirect the standard input stream of the pod for this call. Defaults to false." },
  { name: "stdout", type: 'boolean', description: "Redirect the standard output stream of the pod for this call." },
  { name: "tty", type: 'boolean', description: "TTY if true indicates that a tty will be allocated for the exec call. Defaults to false." },
];

const ATTACH_OPTIONS: Options = [
  { name: "container", type: 'string', description: "The container in which to execute the command. Defaults to only container if there is only one container in the pod." },
  { name: "stderr", type: 'boolean', description: "Stderr if true indicates that stderr is to be redirected for the attach call. Defaults to true." },
  { name: "stdin", type: 'boolean', description: "Stdin if true, redirects the standard input stream of the pod for this call. Defaults to false." },
  { name: "stdout", type: 'boolean', description: "Stdout if true indicates that stdout is to be redirected for the attach call. Defaults to true." },
  { name: "tty", type: 'boolean', description: "TTY if true indicates that a tty will be allocated for the attach call. This is passed through the container runtime so the tty is allocated on the worker node by the container runtime. Defaults to false." },
];

const PORT_FORWARD_OPTIONS: Options = [
  { name: "ports", type: 'integer', description: "List of ports to forward Required when using WebSockets" },
];

const GET_POST = ['GET', 'POST'];
const optionsKind = (kind: string) => ({ group: '', version: 'v1', kind, generated: false as const });

export const podLogSubresource: SubresourceDescriptor = { name: 'log', verbs: ['get'], kind: { group: '', version: 'v1', kind: 'Pod' }, connect: logLocation, connectMethods: ['GET'], connectQuery: LOG_OPTIONS, connectRead: true };
export const podExecSubresource: SubresourceDescriptor = { name: 'exec', verbs: ['create', 'get'], kind: optionsKind('PodExecOptions'), connect: streamLocation('exec'), connectMethods: GET_POST, connectQuery: EXEC_OPTIONS };
export const podAttachSubresource: SubresourceDescriptor = { name: 'attach', verbs: ['create', 'get'], kind: optionsKind('PodAttachOptions'), connect: streamLocation('attach'), connectMethods: GET_POST, connectQuery: ATTACH_OPTIONS };
export const podPortForwardSubresource: SubresourceDescriptor = { name: 'portforward', verbs: ['create', 'get'], kind: optionsKind('PodPortForwardOptions'), connect: streamLocation('portForward'), connectMethods: GET_POST, connectQuery: PORT_FORWARD_OPTIONS };
export const podProxySubresource: SubresourceDescriptor = {
  name: 'proxy',
  verbs: ['create', 'delete', 'get', 'patch', 'update'],
  kind: optionsKind('PodProxyOptions'),
  connect: podProxyLocation,
  connectPathDoc: 'Path is the URL path to use for the current proxy request to pod.',
};
export const serviceProxySubresource: SubresourceDescriptor = {
  name: 'proxy',
  verbs: ['create', 'delete', 'get', 'patch', 'update'],
  kind: optionsKind('ServiceProxyOptions'),
  connect: serviceProxyLocation,
  connectPathDoc: 'Path is the part of URLs that include service endpoints, suffixes, and parameters to use for the current proxy request to service. For example, the whole request URL is http://localhost/api/v1/namespaces/kube-system/services/elasticsearch-logging/_search?q=user:kimchy. Path is _search?q=user:kimchy.',
};
