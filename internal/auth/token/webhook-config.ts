/**
 * A webhook's client configuration from a kubeconfig file, as k8s.io/apiserver's
 * util/webhook.LoadKubeconfig reads it: the current context's cluster is the remote service
 * (`server`, `certificate-authority` / `-data`, `insecure-skip-tls-verify`, `tls-server-name`), its
 * user the API server's credentials towards it (`client-certificate` / `-data` with
 * `client-key` / `-data`, `token` / `tokenFile`, `username` / `password`). Relative file paths are
 * relative to the kubeconfig's directory, as clientcmd resolves them.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { isObj } from '../../gocompat/json.ts';

export interface WebhookClientConfig {
  /** The URL requests are POSTed to, exactly as configured. */
  url: string;
  /** PEM bundle to verify the service's certificate (undefined: the system's roots). */
  ca?: string;
  insecureSkipTlsVerify: boolean;
  servername?: string;
  cert?: string;
  key?: string;
  /** Authorization header value, when the user has a token or basic credentials. */
  authorization?: string;
}

type Obj = Record<string, unknown>;
const str = (o: Obj, k: string): string | undefined => (typeof o[k] === 'string' && o[k] !== '' ? (o[k] as string) : undefined);

function named(list: unknown, name: string, field: string, what: string, file: string): Obj {
  const entry = Array.isArray(list) ? list.find((e) => isObj(e) && e.name === name) : undefined;
  if (!isObj(entry) || !isObj(entry[field])) throw new Error(`invalid configuration: ${what} ${JSON.stringify(name)} not found in ${file}`);
  return entry[field] as Obj;
}

/** Parse a kubeconfig's text (`file` names it in errors and anchors relative paths). */
export function parseWebhookKubeconfig(text: string, file: string): WebhookClientConfig {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new Error(`error loading config file "${file}": ${(e as Error).message}`);
  }
  if (!isObj(doc)) throw new Error(`invalid configuration: no configuration has been provided in ${file}`);
  const current = str(doc, 'current-context');
  if (!current) throw new Error(`invalid configuration: no current-context in ${file}`);
  const ctx = named(doc.contexts, current, 'context', 'context', file);
  const clusterName = str(ctx, 'cluster');
  if (!clusterName) throw new Error(`invalid configuration: context ${JSON.stringify(current)} names no cluster in ${file}`);
  const cluster = named(doc.clusters, clusterName, 'cluster', 'cluster', file);
  const userName = str(ctx, 'user');
  const user = userName ? named(doc.users, userName, 'user', 'user', file) : {};
  const server = str(cluster, 'server');
  if (!server) throw new Error(`invalid configuration: cluster ${JSON.stringify(clusterName)} has no server defined in ${file}`);
  const base = dirname(resolve(file));
  const read = (p: string): string => readFileSync(resolve(base, p), 'utf8');
  const pick = (o: Obj, dataKey: string, fileKey: string): string | undefined => {
    const data = str(o, dataKey);
    if (data) return Buffer.from(data, 'base64').toString('utf8');
    const path = str(o, fileKey);
    return path ? read(path) : undefined;
  };
  const cfg: WebhookClientConfig = { url: server, insecureSkipTlsVerify: cluster['insecure-skip-tls-verify'] === true };
  const ca = pick(cluster, 'certificate-authority-data', 'certificate-authority');
  if (ca) cfg.ca = ca;
  const servername = str(cluster, 'tls-server-name');
  if (servername) cfg.servername = servername;
  const cert = pick(user, 'client-certificate-data', 'client-certificate');
  const key = pick(user, 'client-key-data', 'client-key');
  if (Boolean(cert) !== Boolean(key)) throw new Error(`invalid configuration: client-cert-data and client-key-data must be specified together for user ${JSON.stringify(userName)} in ${file}`);
  if (cert && key) {
    cfg.cert = cert;
    cfg.key = key;
  }
  const tokenFile = str(user, 'tokenFile');
  const token = str(user, 'token') ?? (tokenFile ? read(tokenFile).trim() : undefined);
  if (token) cfg.authorization = `Bearer ${token}`;
  else if (str(user, 'username')) cfg.authorization = `Basic ${Buffer.from(`${str(user, 'username')}:${str(user, 'password') ?? ''}`).toString('base64')}`;
  if (!/^https?:\/\//.test(server)) throw new Error(`invalid configuration: server ${JSON.stringify(server)} of cluster ${JSON.stringify(clusterName)} is not an http(s) URL`);
  return cfg;
}

/** Read and parse a webhook kubeconfig file (start-up: errors say which file). */
export function loadWebhookKubeconfig(file: string): WebhookClientConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`error loading config file "${file}": ${(e as Error).message}`);
  }
  return parseWebhookKubeconfig(text, file);
}
