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
import { connectOptions, proxyPathDoc } from './connect-options.ts';

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

const GET_POST = ['GET', 'POST'];
const optionsKind = (kind: string) => ({ group: '', version: 'v1', kind, generated: false as const });

export const podLogSubresource: SubresourceDescriptor = { name: 'log', verbs: ['get'], kind: { group: '', version: 'v1', kind: 'Pod' }, connect: logLocation, connectMethods: ['GET'], connectQuery: connectOptions('PodLogOptions'), connectRead: true };
export const podExecSubresource: SubresourceDescriptor = { name: 'exec', verbs: ['create', 'get'], kind: optionsKind('PodExecOptions'), connect: streamLocation('exec'), connectMethods: GET_POST, connectQuery: connectOptions('PodExecOptions') };
export const podAttachSubresource: SubresourceDescriptor = { name: 'attach', verbs: ['create', 'get'], kind: optionsKind('PodAttachOptions'), connect: streamLocation('attach'), connectMethods: GET_POST, connectQuery: connectOptions('PodAttachOptions') };
export const podPortForwardSubresource: SubresourceDescriptor = { name: 'portforward', verbs: ['create', 'get'], kind: optionsKind('PodPortForwardOptions'), connect: streamLocation('portForward'), connectMethods: GET_POST, connectQuery: connectOptions('PodPortForwardOptions') };
export const podProxySubresource: SubresourceDescriptor = {
  name: 'proxy',
  verbs: ['create', 'delete', 'get', 'patch', 'update'],
  kind: optionsKind('PodProxyOptions'),
  connect: podProxyLocation,
  connectPathDoc: proxyPathDoc('PodProxyOptions'),
};
export const serviceProxySubresource: SubresourceDescriptor = {
  name: 'proxy',
  verbs: ['create', 'delete', 'get', 'patch', 'update'],
  kind: optionsKind('ServiceProxyOptions'),
  connect: serviceProxyLocation,
  connectPathDoc: proxyPathDoc('ServiceProxyOptions'),
};
