/**
 * One priority level's queues: fair queuing for server requests (k8s.io/apiserver 1.24
 * pkg/util/flowcontrol/fairqueuing/queueset). A request is dealt a hand of queues by its flow
 * (shuffle sharding), joins the one holding the least work, and waits until the level has seats
 * free; then the queue whose head would finish first in virtual time is served.
 *
 * Virtual time R (seat-seconds) advances at min(C, seats wanted) / (non-empty queues) per second,
 * C the level's concurrency limit. A queue's `nextDispatchR` is when, in R, its head may start: it
 * grows by each dispatched request's estimated work (G = 3 ms × seats) and is corrected by
 * (G − actual duration) × seats when the request finishes, never below its head's arrival R.
 *
 * Worked example, C = 1, flows a and b in queues 0 and 1, a arrives with 3 requests then b with one:
 * a1 runs at once (queue 0: nextDispatchR += 3 ms); when it finishes, queue 0's head (a2) would finish
 * at nextDispatchR(0) + 3 ms, queue 1's head (b1) at its arrival R + 3 ms, which is earlier: b1 runs
 * before a2 although it arrived after it.
 *
 * Everything here runs on the event loop, so kube's lock is the JavaScript run-to-completion.
 */
import type { Dealer } from './shuffle-sharding.ts';

/** Seats a request holds while it executes and after it (kube's WorkEstimate). */
export interface WorkEstimate {
  initialSeats: number;
  finalSeats: number;
  /** How long the final seats stay held after the response. */
  additionalLatencyMs: number;
}

/** kube's estimatedServiceDuration: the initial guess of every request's execution time (3 ms). */
const ESTIMATED_SERVICE_SECONDS = 0.003;

/** Where the flow control's numbers go (the apiserver_flowcontrol_* metrics). */
export interface FlowControlObserver {
  concurrencyLimit(pl: string, limit: number): void;
  rejected(pl: string, fs: string, reason: 'queue-full' | 'concurrency-limit' | 'time-out' | 'cancelled'): void;
  dispatched(pl: string, fs: string): void;
  inQueue(pl: string, fs: string, delta: number): void;
  executing(pl: string, fs: string, delta: number): void;
  seatsInUse(pl: string, fs: string, delta: number): void;
  queueLengthAfterEnqueue(pl: string, fs: string, length: number): void;
  waitDuration(pl: string, fs: string, executed: boolean, seconds: number): void;
  executionDuration(pl: string, fs: string, watch: boolean, seconds: number): void;
  estimatedSeats(pl: string, fs: string, seats: number): void;
  currentR(pl: string, r: number): void;
  dispatchR(pl: string, r: number, s: number, sMin: number, sMax: number, dsMin: number, dsMax: number): void;
}

export interface QueueSetConfig {
  name: string;
  /** 0: no queues, a request over the limit is rejected at once (kube's Reject limit response). */
  queues: number;
  handSize: number;
  queueLengthLimit: number;
  requestWaitLimitMs: number;
  concurrencyLimit: number;
}

/** What the debug dumps show of a waiting request. */
export interface RequestDescription {
  userName: string;
  verb: string;
  path: string;
  namespace: string;
  name: string;
  apiVersion: string;
  resource: string;
  subresource: string;
}

export type Decision = 'execute' | 'reject' | 'cancel';

export class QueuedRequest {
  queue: Queue | null = null;
  startMs = 0;
  decision: Decision | null = null;
  readonly maxSeats: number;
  /** Estimated work in seat-seconds (initial seats × G + final seats × additional latency). */
  readonly totalWork: number;
  private settle: ((d: Decision) => void) | null = null;
  /** Resolves once the request may run (execute) or must not (reject, cancel). */
  readonly decided: Promise<Decision>;

  constructor(
    readonly set: QueueSet,
    readonly fsName: string,
    readonly flowDistinguisher: string,
    readonly work: WorkEstimate,
    readonly arrivalMs: number,
    readonly arrivalR: number,
    readonly description: RequestDescription,
  ) {
    this.maxSeats = Math.max(work.initialSeats, work.finalSeats);
    this.totalWork = work.initialSeats * ESTIMATED_SERVICE_SECONDS + work.finalSeats * (work.additionalLatencyMs / 1000);
    this.decided = new Promise((resolve) => (this.settle = resolve));
  }

  /** Record the decision once; false when one was already taken. */
  decide(d: Decision): boolean {
    if (this.decision) return false;
    this.decision = d;
    this.settle!(d);
    this.settle = null;
    return true;
  }

  /** Stop waiting (client gone, deadline): leaves its queue unless already dispatched. */
  cancel(): void {
    this.set.cancel(this);
  }

  /** The request executed and its response is complete: release its seats. */
  finish(): void {
    this.set.finish(this);
  }
}

export class Queue {
  readonly requests: QueuedRequest[] = [];
  nextDispatchR = 0;
  requestsExecuting = 0;
  seatsInUse = 0;
  initialSeatsSum = 0;
  maxSeatsSum = 0;
  totalWorkSum = 0;

  constructor(public index: number) {}

  push(r: QueuedRequest): void {
    this.requests.push(r);
    this.add(r, 1);
  }

  shift(): QueuedRequest | undefined {
    const r = this.requests.shift();
    if (r) this.add(r, -1);
    return r;
  }

  /** Remove a waiting request from anywhere in the queue; false when it is not there. */
  remove(r: QueuedRequest): boolean {
    const i = this.requests.indexOf(r);
    if (i < 0) return false;
    this.requests.splice(i, 1);
    this.add(r, -1);
    return true;
  }

  private add(r: QueuedRequest, sign: 1 | -1): void {
    this.initialSeatsSum += sign * r.work.initialSeats;
    this.maxSeatsSum += sign * r.maxSeats;
    this.totalWorkSum += sign * r.totalWork;
  }
}

/** A start's outcome: rejected at once (with kube's reason), or a request that waits or runs. */
export type StartResult = { rejected: 'queue-full' | 'concurrency-limit' } | { request: QueuedRequest };

export class QueueSet {
  readonly queues: Queue[] = [];
  currentR = 0;
  totalWaiting = 0;
  totalExecuting = 0;
  totalSeatsInUse = 0;
  private lastRealMs: number;
  private robinIndex = -1;
  private enqueues = 0;
  private readonly hands = new Map<string, number[]>();

  /**
   * @param held while true, nothing new starts: the process is busy accepting connections (see
   *   FlowController.holdDispatch); requests queue as if every seat were taken.
   */
  constructor(
    readonly config: QueueSetConfig,
    private readonly dealer: Dealer | null,
    private readonly observer: FlowControlObserver,
    private readonly now: () => number,
    private readonly held: () => boolean = () => false,
  ) {
    for (let i = 0; i < config.queues; i++) this.queues.push(new Queue(i));
    this.lastRealMs = now();
  }

  get idle(): boolean {
    return this.totalWaiting === 0 && this.totalExecuting === 0;
  }

  /**
   * A request of flow (fsName, distinguisher) with hash `hash` arrives. Without queues it runs if
   * its seats fit, else it is rejected; with queues it joins the least loaded queue of its hand
   * (after the requests of that queue waiting longer than the wait limit are rejected), unless
   * every seat is taken and that queue is full, then it is dispatched as far as seats allow.
   */
  start(fsName: string, distinguisher: string, hash: bigint, work: WorkEstimate, description: RequestDescription): StartResult {
    this.syncTime();
    const pl = this.config.name;
    const nowMs = this.now();
    const req = new QueuedRequest(this, fsName, distinguisher, work, nowMs, this.currentR, description);
    if (this.config.queues < 1) {
      if (!this.canAccommodate(req.maxSeats)) {
        this.observer.rejected(pl, fsName, 'concurrency-limit');
        return { rejected: 'concurrency-limit' };
      }
      req.decide('execute');
      this.startExecuting(req, null);
      return { request: req };
    }
    const queue = this.queues[this.shuffleShard(fsName, distinguisher, hash)]!;
    this.rejectTimedOut(queue, nowMs);
    if ((this.held() || this.totalSeatsInUse >= this.config.concurrencyLimit) && queue.requests.length >= this.config.queueLengthLimit) {
      this.boundNextDispatch(queue);
      this.observer.rejected(pl, fsName, 'queue-full');
      return { rejected: 'queue-full' };
    }
    if (queue.requests.length === 0 && queue.requestsExecuting === 0) queue.nextDispatchR = this.currentR;
    req.queue = queue;
    queue.push(req);
    this.totalWaiting++;
    this.observer.inQueue(pl, fsName, 1);
    this.boundNextDispatch(queue);
    this.observer.queueLengthAfterEnqueue(pl, fsName, queue.requests.length);
    this.dispatchAsMuchAsPossible();
    return { request: req };
  }

  /** A waiting request gives up (kube: its context ended); an executing one is unaffected. */
  cancel(req: QueuedRequest): void {
    if (req.decision) return;
    this.syncTime();
    req.decide('cancel');
    const queue = req.queue;
    if (queue && queue.remove(req)) {
      this.totalWaiting--;
      this.observer.rejected(this.config.name, req.fsName, 'cancelled');
      this.observer.inQueue(this.config.name, req.fsName, -1);
      this.boundNextDispatch(queue);
    }
  }

  /** An executing request is done: correct its queue's virtual time, free its seats, dispatch. */
  finish(req: QueuedRequest): void {
    if (req.decision !== 'execute' || req.startMs < 0) return;
    this.syncTime();
    const pl = this.config.name;
    const nowMs = this.now();
    const serviceSeconds = (nowMs - req.startMs) / 1000;
    req.startMs = -1;
    this.totalExecuting--;
    this.observer.executing(pl, req.fsName, -1);
    const queue = req.queue;
    if (queue) {
      queue.requestsExecuting--;
      queue.nextDispatchR -= req.work.initialSeats * (ESTIMATED_SERVICE_SECONDS - serviceSeconds);
      this.boundNextDispatch(queue);
    }
    const release = (): void => {
      this.totalSeatsInUse -= req.maxSeats;
      this.observer.seatsInUse(pl, req.fsName, -req.maxSeats);
      if (queue) queue.seatsInUse -= req.maxSeats;
    };
    if (req.work.additionalLatencyMs <= 0) {
      release();
      this.dispatchAsMuchAsPossible();
      return;
    }
    // The final seats stay held for the additional latency (the watch events' fan-out), unseen by
    // the client, whose response is already complete.
    setTimeout(() => {
      this.syncTime();
      release();
      this.dispatchAsMuchAsPossible();
    }, req.work.additionalLatencyMs).unref();
  }

  /** Advance R for the time since the last change, at the rate the current state gives. */
  private syncTime(): void {
    const nowMs = this.now();
    const dt = (nowMs - this.lastRealMs) / 1000;
    this.lastRealMs = nowMs;
    if (dt > 0) {
      let active = 0;
      let seatsRequested = 0;
      for (const q of this.queues) {
        seatsRequested += q.seatsInUse + q.maxSeatsSum;
        if (q.requests.length > 0 || q.requestsExecuting > 0) active++;
      }
      if (active > 0) this.currentR += (Math.min(seatsRequested, this.config.concurrencyLimit) / active) * dt;
    }
    this.observer.currentR(this.config.name, this.currentR);
  }

  /** The least loaded queue (waiting work) of the flow's hand, visited from a rotating offset. */
  private shuffleShard(fsName: string, distinguisher: string, hash: bigint): number {
    const key = `${fsName}\0${distinguisher}`;
    let hand = this.hands.get(key);
    if (!hand) {
      hand = this.dealer!.deal(hash);
      // Bounded: a flow is a user or namespace; past 10,000 flows the memo starts over.
      if (this.hands.size >= 10_000) this.hands.clear();
      this.hands.set(key, hand);
    }
    const offset = this.enqueues++ % hand.length;
    let best = -1;
    let bestWork = Infinity;
    for (let i = 0; i < hand.length; i++) {
      const idx = hand[(offset + i) % hand.length]!;
      const work = this.queues[idx]!.totalWorkSum;
      if (work < bestWork) {
        bestWork = work;
        best = idx;
      }
    }
    return best;
  }

  /** kube checks the wait limit when a request arrives at a queue, oldest first. */
  private rejectTimedOut(queue: Queue, nowMs: number): void {
    const limit = nowMs - this.config.requestWaitLimitMs;
    while (queue.requests.length && queue.requests[0]!.arrivalMs < limit) {
      const r = queue.shift()!;
      this.totalWaiting--;
      r.decide('reject');
      this.observer.inQueue(this.config.name, r.fsName, -1);
      this.observer.rejected(this.config.name, r.fsName, 'time-out');
    }
  }

  /** Anti-windup: a queue's next dispatch is never before its head's arrival. */
  private boundNextDispatch(queue: Queue): void {
    const head = queue.requests[0];
    if (head && queue.nextDispatchR < head.arrivalR) queue.nextDispatchR = head.arrivalR;
  }

  private canAccommodate(seats: number): boolean {
    if (this.held()) return false;
    if (seats > this.config.concurrencyLimit) return this.totalExecuting === 0;
    return this.totalSeatsInUse + seats <= this.config.concurrencyLimit;
  }

  /** Start what the free seats allow (after a hold ends). */
  dispatchAsMuchAsPossible(): void {
    while (this.totalWaiting > 0 && this.totalSeatsInUse < this.config.concurrencyLimit && this.dispatchOne());
  }

  /** Serve the head of the queue whose head finishes first in virtual time, if its seats fit. */
  private dispatchOne(): boolean {
    let minFinish = Infinity;
    let sMin = Infinity, sMax = -Infinity, dsMin = Infinity, dsMax = -Infinity;
    let minQueue: Queue | null = null;
    let minIndex = 0;
    const n = this.queues.length;
    for (let k = 0; k < n; k++) {
      this.robinIndex = (this.robinIndex + 1) % n;
      const q = this.queues[this.robinIndex]!;
      const head = q.requests[0];
      if (!head) continue;
      sMin = Math.min(sMin, q.nextDispatchR);
      sMax = Math.max(sMax, q.nextDispatchR);
      const inProgress = q.seatsInUse * ESTIMATED_SERVICE_SECONDS;
      dsMin = Math.min(dsMin, q.nextDispatchR - inProgress);
      dsMax = Math.max(dsMax, q.nextDispatchR - inProgress);
      const finish = q.nextDispatchR + head.totalWork;
      if (finish < minFinish) {
        minFinish = finish;
        minQueue = q;
        minIndex = this.robinIndex;
      }
    }
    if (!minQueue) return false;
    const req = minQueue.requests[0]!;
    if (!this.canAccommodate(req.maxSeats)) return false;
    minQueue.shift();
    this.robinIndex = minIndex;
    this.totalWaiting--;
    this.observer.inQueue(this.config.name, req.fsName, -1);
    this.observer.dispatchR(this.config.name, this.currentR, minQueue.nextDispatchR, sMin, sMax, dsMin, dsMax);
    if (req.decide('execute')) {
      this.startExecuting(req, minQueue);
      minQueue.nextDispatchR += req.totalWork;
    }
    this.boundNextDispatch(minQueue);
    return true;
  }

  private startExecuting(req: QueuedRequest, queue: Queue | null): void {
    req.startMs = this.now();
    this.totalExecuting++;
    this.totalSeatsInUse += req.maxSeats;
    if (queue) {
      queue.requestsExecuting++;
      queue.seatsInUse += req.maxSeats;
    }
    this.observer.executing(this.config.name, req.fsName, 1);
    this.observer.seatsInUse(this.config.name, req.fsName, req.maxSeats);
  }
}
