/**
 * kube-apiserver 1.24's apiserver_flowcontrol_* metrics (k8s.io/apiserver
 * pkg/util/flowcontrol/metrics): same names, labels (written in Go's sorted order), buckets and
 * help texts, fed by the flow controller through its observer interface. The sampled
 * seat/request-count histograms (…_samples, …_watermarks) are not reproduced.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { FlowControlObserver } from '../flowcontrol/queue-set.ts';
import { annotatedHelp, type MetricMeta } from './lifecycle.ts';

const QUEUE_LENGTH_BUCKETS = [0, 10, 25, 50, 100, 250, 500, 1000];
const REQUEST_DURATION_BUCKETS = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30];
const SEATS_BUCKETS = [1, 2, 4, 10];

const alpha = (name: string, help: string): MetricMeta => ({ name: `apiserver_flowcontrol_${name}`, help, stabilityLevel: 'ALPHA' });

/** The observer, registering its metrics in `registry` (the server's /metrics). */
export function flowControlMetrics(registry: Registry): FlowControlObserver {
  const counter = <K extends string>(m: MetricMeta, labelNames: K[]) => new Counter<K>({ name: m.name, help: annotatedHelp(m), labelNames, registers: [registry] });
  // `aggregator`: how `--workers` threads' values add up (sums, unless a figure is the server's own).
  const gauge = <K extends string>(m: MetricMeta, labelNames: K[], aggregator?: 'max') => new Gauge<K>({ name: m.name, help: annotatedHelp(m), labelNames, registers: [registry], ...(aggregator ? { aggregator } : {}) });
  const histogram = <K extends string>(m: MetricMeta, labelNames: K[], buckets: number[]) => new Histogram<K>({ name: m.name, help: annotatedHelp(m), labelNames, buckets, registers: [registry] });
  const rejected = counter(alpha('rejected_requests_total', 'Number of requests rejected by API Priority and Fairness subsystem'), ['flow_schema', 'priority_level', 'reason']);
  const dispatched = counter(alpha('dispatched_requests_total', 'Number of requests executed by API Priority and Fairness subsystem'), ['flow_schema', 'priority_level']);
  const inQueue = gauge(alpha('current_inqueue_requests', 'Number of requests currently pending in queues of the API Priority and Fairness subsystem'), ['flow_schema', 'priority_level']);
  const queueLength = histogram(alpha('request_queue_length_after_enqueue', 'Length of queue in the API Priority and Fairness subsystem, as seen by each request after it is enqueued'), ['flow_schema', 'priority_level'], QUEUE_LENGTH_BUCKETS);
  const limit = gauge(alpha('request_concurrency_limit', 'Shared concurrency limit in the API Priority and Fairness subsystem'), ['priority_level'], 'max');
  const executing = gauge(alpha('current_executing_requests', 'Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem'), ['flow_schema', 'priority_level']);
  const inUse = gauge(alpha('request_concurrency_in_use', 'Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem'), ['flow_schema', 'priority_level']);
  const wait = histogram(alpha('request_wait_duration_seconds', 'Length of time a request spent waiting in its queue'), ['execute', 'flow_schema', 'priority_level'], REQUEST_DURATION_BUCKETS);
  const execution = histogram(alpha('request_execution_seconds', 'Duration of initial stage (for a WATCH) or any (for a non-WATCH) stage of request execution in the API Priority and Fairness subsystem'), ['flow_schema', 'priority_level', 'type'], REQUEST_DURATION_BUCKETS);
  const seats = histogram(alpha('work_estimated_seats', 'Number of estimated seats (maximum of initial and final seats) associated with requests in API Priority and Fairness'), ['flow_schema', 'priority_level'], SEATS_BUCKETS);
  const currentR = gauge(alpha('current_r', 'R(time of last change)'), ['priority_level'], 'max');
  const dispatchR = gauge(alpha('dispatch_r', 'R(time of last dispatch)'), ['priority_level'], 'max');
  const latestS = gauge(alpha('latest_s', 'S(most recently dispatched request)'), ['priority_level'], 'max');
  const nextS = gauge(alpha('next_s_bounds', 'min and max, over queues, of S(oldest waiting request in queue)'), ['bound', 'priority_level'], 'max');
  const nextDiscountedS = gauge(alpha('next_discounted_s_bounds', 'min and max, over queues, of S(oldest waiting request in queue) - estimated work in progress'), ['bound', 'priority_level'], 'max');
  return {
    concurrencyLimit: (pl, n) => limit.set({ priority_level: pl }, n),
    rejected: (pl, fs, reason) => rejected.inc({ flow_schema: fs, priority_level: pl, reason }),
    dispatched: (pl, fs) => dispatched.inc({ flow_schema: fs, priority_level: pl }),
    inQueue: (pl, fs, d) => inQueue.inc({ flow_schema: fs, priority_level: pl }, d),
    executing: (pl, fs, d) => executing.inc({ flow_schema: fs, priority_level: pl }, d),
    seatsInUse: (pl, fs, d) => inUse.inc({ flow_schema: fs, priority_level: pl }, d),
    queueLengthAfterEnqueue: (pl, fs, n) => queueLength.observe({ flow_schema: fs, priority_level: pl }, n),
    waitDuration: (pl, fs, executed, s) => wait.observe({ execute: String(executed), flow_schema: fs, priority_level: pl }, s),
    executionDuration: (pl, fs, watch, s) => execution.observe({ flow_schema: fs, priority_level: pl, type: watch ? 'watch' : 'regular' }, s),
    estimatedSeats: (pl, fs, n) => seats.observe({ flow_schema: fs, priority_level: pl }, n),
    currentR: (pl, r) => currentR.set({ priority_level: pl }, r),
    dispatchR: (pl, r, s, sMin, sMax, dsMin, dsMax) => {
      dispatchR.set({ priority_level: pl }, r);
      latestS.set({ priority_level: pl }, s);
      nextS.set({ bound: 'min', priority_level: pl }, sMin);
      nextS.set({ bound: 'max', priority_level: pl }, sMax);
      nextDiscountedS.set({ bound: 'min', priority_level: pl }, dsMin);
      nextDiscountedS.set({ bound: 'max', priority_level: pl }, dsMax);
    },
  };
}
