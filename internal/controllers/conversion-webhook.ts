/**
 * The HTTPS side of CRD conversion webhooks (registry/apiextensions/conversion.ts builds and checks
 * the ConversionReview; the registry does no network I/O): one POST through the admission webhook
 * client (caBundle, `<svc>.<ns>.svc` TLS name, Go's error texts, a pooled keep-alive agent). A
 * `service` reference is resolved from the Service as stored now, as kube's resolver reads its
 * informer; kube's conversion client has a 30 s timeout.
 */
import type { KubeObject } from '../api/types.ts';
import type { Registry } from '../registry/registry.ts';
import type { ConversionWebhookCall } from '../registry/apiextensions/conversion.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import { CallError, callWebhook, webhookAgent } from '../admission/webhook/client.ts';
import type { Webhook } from '../admission/webhook/source.ts';

/** kube's webhook client timeout for conversion calls (webhook.ClientManager's default). */
const CONVERSION_TIMEOUT_S = 30;

export function conversionWebhookCaller(registry: Registry): ConversionWebhookCall {
  const agent = webhookAgent();
  return async (name, clientConfig, review) => {
    let service: KubeObject | undefined;
    const ref = clientConfig.service;
    if (ref) {
      const services = registry.lookup('', 'v1', 'services');
      service = await services?.reader.get(ref.namespace, ref.name, '0').then(parseObject, () => undefined);
    }
    const hook = {
      name,
      timeoutSeconds: CONVERSION_TIMEOUT_S,
      clientConfig: { url: clientConfig.url, caBundle: clientConfig.caBundle, service: ref && { ...ref, port: ref.port ?? 443 } },
    } as Webhook;
    try {
      return await callWebhook(hook, () => service, review, agent);
    } catch (e) {
      if (e instanceof CallError) throw new Error(e.reason.replace(/^failed to call webhook: /, ''));
      throw e;
    }
  };
}
