/**
 * Kubernetes' duration.HumanDuration, which server-side printers use for the Age column
 * ("45s", "5m3s", "3h20m", "12d").
 */
export function humanDuration(ms: number): string {
  const s = Math.trunc(ms / 1000); // Go's int(d.Seconds()) truncates toward zero
  if (s < -1) return '<invalid>';
  if (s < 0) return '0s';
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  if (h < 24 * 8) return h % 24 === 0 ? `${Math.floor(h / 24)}d` : `${Math.floor(h / 24)}d${h % 24}h`;
  if (h < 24 * 365 * 2) return `${Math.floor(h / 24)}d`;
  if (h < 24 * 365 * 8) {
    const dy = Math.floor(h / 24) % 365;
    return dy === 0 ? `${Math.floor(h / 24 / 365)}y` : `${Math.floor(h / 24 / 365)}y${dy}d`;
  }
  return `${Math.floor(h / 24 / 365)}y`;
}
