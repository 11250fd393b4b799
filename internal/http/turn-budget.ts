/**
 * A budget per event-loop turn for the heavy part of requests (a write's decode, admission,
 * validation and append, which starts once its body is read: server.ts readBody). Under 1,000
 * clients' creates every check phase ran the work of every body read in the poll phase before it,
 * so a turn lasted hundreds of ms and a new connection's TLS handshake (two or three turns) or an
 * exempt request (/readyz, an admin's) waited that long each turn. Measured with bench:overload at
 * 1,000 connections (machine load 15-18 on 2 cores, 2 alternated pairs): admin and /readyz probes
 * over 1 s after the connection burst 1-2 per run without the budget, none with it; creates/s
 * 190/186 without, 469/203 with.
 */
/** How long one check phase may spend on the bodies read (what their writes do next) before the rest wait a turn. */
export const TURN_BUDGET_MS = 20;
/** When the current check phase began running bodies' work (-1: not in one). */
let phaseStart = -1;

/**
 * Run `fn` in the event loop's check phase (setImmediate), after the poll phase that read its
 * request — at most TURN_BUDGET_MS of such work per turn: what is left waits for the next turn,
 * ahead of newer work, so the poll phase (accepting connections, TLS handshakes, exempt requests)
 * comes round again. Each callback's continuation (microtasks) runs before the next is looked at,
 * so the time measured is the work done.
 */
export function afterPoll(fn: () => void): void {
  setImmediate(runInTurn, fn);
}
function runInTurn(fn: () => void): void {
  const now = performance.now();
  if (phaseStart < 0) {
    phaseStart = now;
    // Queued before anything deferred below: it runs first in the next check phase.
    setImmediate(() => (phaseStart = -1));
  } else if (now - phaseStart > TURN_BUDGET_MS) {
    setImmediate(runInTurn, fn);
    return;
  }
  fn();
}
