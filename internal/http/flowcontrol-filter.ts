/**
 * The request limiter of the filter chain, kube 1.24's place for it: after authentication, audit
 * and impersonation, before authorization (DefaultBuildHandlerChain). Either API Priority and
 * Fairness (the default) or, with --enable-priority-and-fairness=false, the plain max-in-flight
 * limiter. A request that may not run is answered at once with kube's 429 (text/plain
 * `Too many requests, please try again later.`, Retry-After: 1) before its body is read, so a
 * rejection costs a few microseconds, not a decode.
 *
 * Long-running requests other than watches (proxy, exec, attach, log, portforward) are not limited;
 * a watch holds its seat only while it starts (kube: until its watcher is registered), which here is
 * until the watch handler returns, having sent its headers and registered with the hub.
 */
import type { IncomingMessage } from 'node:http';
import type { EventEmitter } from 'node:events';
import type { Http2ServerRequest } from 'node:http2';
import type { UserInfo } from '../api/types.ts';
import type { FlowController } from '../flowcontrol/controller.ts';
import type { MaxInflightLimiter } from '../flowcontrol/max-inflight.ts';
import type { WatchTracker, WorkEstimator } from '../flowcontrol/work-estimator.ts';
import type { RequestInfo } from './request-info.ts';
import { sendText, type Res } from './respond.ts';

type Req = IncomingMessage | Http2ServerRequest;

/** Call once the request's handler returned (a watch: once it started). Idempotent. */
export type Release = () => void;

export interface RequestLimiter {
  /**
   * Let the request run (a Release, synchronously when nothing waits) or answer it 429 (null).
   * Never throws.
   */
  admit(req: Req, res: Res, info: RequestInfo, user: UserInfo, query: URLSearchParams): Release | null | Promise<Release | null>;
  /** The /debug/api_priority_and_fairness/ dump at `path`, or null (not one, or no APF). */
  debugDump?(path: string, query: URLSearchParams): Promise<string> | null;
}

const NOT_LIMITED: Release = () => undefined;
/** kube's BasicLongRunningRequestCheck of kube-apiserver. */
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);
const READ_ONLY_VERBS = new Set(['get', 'list', 'watch']);
const TOO_MANY = 'Too many requests, please try again later.\n';

function longRunningNonWatch(info: RequestInfo): boolean {
  return info.isResourceRequest && (info.verb === 'proxy' || LONG_RUNNING_SUBRESOURCES.has(info.subresource));
}

/** Responses the limiter refused (for apiserver_request_terminations_total). */
const refused = new WeakSet<Res>();

/** Whether the limiter answered this response 429 (kube counts those as terminations). */
export function refusedBySelfDefense(res: Res): boolean {
  return refused.has(res);
}

/** kube's tooManyRequests: Retry-After 1 and http.Error's text body. Drains the unread body. */
function tooManyRequests(req: Req, res: Res): null {
  refused.add(res);
  req.resume();
  sendText(res, 429, TOO_MANY, { 'Retry-After': '1' });
  return null;
}

export interface PriorityAndFairnessDeps {
  controller: FlowController;
  estimator: WorkEstimator;
  watches: WatchTracker;
}

/** API Priority and Fairness as a RequestLimiter. */
export function priorityAndFairness(deps: PriorityAndFairnessDeps): RequestLimiter {
  return {
    admit(req, res, info, user, query) {
      if (longRunningNonWatch(info)) return NOT_LIMITED;
      const watch = info.isResourceRequest && info.verb === 'watch';
      const digest = { user, isResourceRequest: info.isResourceRequest, verb: info.verb, group: info.group, version: info.version, resource: info.resource, subresource: info.subresource, namespace: info.namespace, name: info.name, path: info.path };
      const ticket = deps.controller.begin(digest, () => deps.estimator.estimate({ verb: info.verb, group: info.group, resource: info.resource, namespace: info.namespace, name: info.name, query }), watch);
      const c = ticket.classification;
      // kube sends the uids, not the names, which an administrator may not want to show.
      res.setHeader('X-Kubernetes-PF-FlowSchema-UID', c.flowSchemaUid);
      res.setHeader('X-Kubernetes-PF-PriorityLevel-UID', c.priorityLevelUid);
      const run = (): Release => {
        const forget = watch ? deps.watches.register({ verb: info.verb, group: info.group, resource: info.resource, namespace: info.namespace, name: info.name, query }) : null;
        const release = (): void => ticket.finish();
        // A client that goes away ends the request: its seat is free even if a handler still runs.
        res.once('close', () => {
          release();
          forget?.();
        });
        return release;
      };
      if (ticket.immediate === true) return run();
      if (ticket.immediate === false) return tooManyRequests(req, res);
      // Queued: leave the queue when the response closes: the client went away, or the request's
      // deadline (armed before this filter, timeout.ts) passed and its 504 went out.
      const cancel = (): void => ticket.cancel();
      res.once('close', cancel);
      return ticket.admitted.then((ok) => {
        res.off('close', cancel);
        if (!ok) return res.destroyed || res.writableEnded ? null : tooManyRequests(req, res);
        if (res.destroyed) {
          ticket.finish();
          return null;
        }
        return run();
      });
    },
    debugDump(path, query) {
      switch (path) {
        // Every serving thread's queues as one server's (`--workers N`).
        case '/debug/api_priority_and_fairness/dump_priority_levels':
          return deps.controller.dump('priority_levels');
        case '/debug/api_priority_and_fairness/dump_queues':
          return deps.controller.dump('queues');
        case '/debug/api_priority_and_fairness/dump_requests':
          return deps.controller.dump('requests', !!query.get('includeRequestDetails'));
        default:
          return null;
      }
    },
  };
}

/** The max-in-flight filter as a RequestLimiter (--enable-priority-and-fairness=false). */
export function maxInflight(limiter: MaxInflightLimiter): RequestLimiter {
  return {
    admit(req, res, info, user) {
      if (longRunningNonWatch(info) || (info.isResourceRequest && info.verb === 'watch')) return NOT_LIMITED;
      const release = limiter.tryAcquire(!READ_ONLY_VERBS.has(info.verb), user.groups);
      if (!release) return tooManyRequests(req, res);
      res.once('close', release);
      return release;
    },
  };
}

/** How often the loop's lag and the accepted connections are looked at. */
const TICK_MS = 25;
/** Lag (ms behind the tick) above which a tick with accepted connections holds requests. */
const HOLD_LAG_MS = 30;
/** A hold lasts at most this long; then one tick without a hold before the next. */
const MAX_HOLD_MS = 5000;

/**
 * Hold the start of limited requests while connections are being accepted and the event loop
 * lags (see FlowController.holdDispatch). libuv (Node 20) accepts one connection per loop iteration:
 * measured with a loop of 20 ms iterations, 48 accepts/s, and under 1,000 clients' creates the
 * listen queue held ~600 connections draining at ~15/s, so most clients hit Go's 10 s TLS
 * handshake timeout. While held, an iteration runs no new request (they queue, or get their 429
 * when the queue is full), iterations are short and the listen queue drains. A tick (25 ms) that
 * saw a connection accepted and a lag over 30 ms starts a hold; it lasts while every tick sees
 * connections accepted, 5 s at most, then one tick runs requests before the next, so a steady
 * stream of new connections cannot stall requests (APF's own wait limit is 15 s).
 */
export function holdDuringConnectionBursts(server: EventEmitter, hold: (held: boolean) => void): { close(): void } {
  let accepted = 0;
  let holding = false;
  let heldSince = 0;
  server.on('connection', () => void accepted++);
  let expected = performance.now() + TICK_MS;
  const timer = setInterval(() => {
    const now = performance.now();
    const lag = now - expected;
    expected = now + TICK_MS;
    // A hold starts on accepts with lag, and lasts while connections keep being accepted (short
    // iterations then keep the lag low: it is the hold that keeps them short).
    const accepting = accepted > 0;
    accepted = 0;
    if (holding && (!accepting || now - heldSince > MAX_HOLD_MS)) {
      holding = false;
      hold(false);
    } else if (!holding && accepting && lag > HOLD_LAG_MS) {
      holding = true;
      heldSince = now;
      hold(true);
    }
  }, TICK_MS);
  timer.unref();
  return { close: () => clearInterval(timer) };
}
