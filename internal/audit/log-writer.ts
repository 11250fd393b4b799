/**
 * The audit log file, rotated the way kube-apiserver's log backend rotates it (lumberjack.v2 with
 * `--audit-log-maxsize` MB (0: 100 MB), `--audit-log-maxbackup` files (0: keep all) and
 * `--audit-log-maxage` days (0: no age limit)): a write that would take the file past the size
 * renames it to `<name>-<UTC 2006-01-02T15-04-05.000><ext>` and starts a new one; then backups
 * beyond the count or the age are removed. `-` writes to standard output.
 *
 * Lines are queued and written together once per event-loop turn (one write call for all the
 * events of a turn, not one per event); `flush()` writes synchronously (shutdown).
 */
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';

export interface RotationOptions {
  /** --audit-log-maxsize: megabytes before rotation (0: lumberjack's default 100). */
  maxSizeMB?: number;
  /** --audit-log-maxbackup: rotated files kept (0: all). */
  maxBackups?: number;
  /** --audit-log-maxage: days a rotated file is kept, by the time in its name (0: forever). */
  maxAgeDays?: number;
}

const MEGABYTE = 1024 * 1024;
/** lumberjack's defaultMaxSize. */
const DEFAULT_MAX_SIZE_MB = 100;
const DAY_MS = 24 * 3600 * 1000;

/** lumberjack's backupTimeFormat, in UTC: 2006-01-02T15-04-05.000. */
export function backupTimestamp(d: Date): string {
  const iso = d.toISOString(); // 2026-11-25T02:47:19.535Z
  return `${iso.slice(0, 10)}T${iso.slice(11, 13)}-${iso.slice(14, 16)}-${iso.slice(17, 23)}`;
}

function parseBackupTimestamp(s: string): number | undefined {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2}\.\d{3})$/.exec(s);
  return m ? Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}Z`) : undefined;
}

export class AuditLogWriter {
  private fd: number;
  private size = 0;
  private queue: string[] = [];
  private scheduled = false;
  private closed = false;

  private constructor(private readonly path: string, private readonly opts: Required<RotationOptions>) {
    this.fd = path === '-' ? 1 : this.openFile();
  }

  /** Open (creating it with mode 0600, its directory 0700) the log at `path`, or stdout for `-`. */
  static open(path: string, opts: RotationOptions = {}): AuditLogWriter {
    for (const [flag, v] of [['maxage', opts.maxAgeDays], ['maxbackup', opts.maxBackups], ['maxsize', opts.maxSizeMB]] as const) {
      if ((v ?? 0) < 0) throw new Error(`--audit-log-${flag} ${v} can't be a negative number`);
    }
    return new AuditLogWriter(path, { maxSizeMB: opts.maxSizeMB || DEFAULT_MAX_SIZE_MB, maxBackups: opts.maxBackups ?? 0, maxAgeDays: opts.maxAgeDays ?? 0 });
  }

  /** Queue one line (without its newline). */
  write(line: string): void {
    if (this.closed) return;
    this.queue.push(line + '\n');
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Write everything queued now. */
  flush(): void {
    this.scheduled = false;
    if (this.queue.length === 0) return;
    const lines = this.queue;
    this.queue = [];
    if (this.path === '-') {
      writeSync(1, lines.join(''));
      return;
    }
    const max = this.opts.maxSizeMB * MEGABYTE;
    let chunk = '';
    let chunkBytes = 0;
    for (const line of lines) {
      const n = Buffer.byteLength(line);
      if (this.size + chunkBytes + n > max && this.size + chunkBytes > 0) {
        if (chunk) writeSync(this.fd, chunk);
        this.size += chunkBytes;
        chunk = '';
        chunkBytes = 0;
        this.rotate();
      }
      chunk += line;
      chunkBytes += n;
    }
    if (chunk) writeSync(this.fd, chunk);
    this.size += chunkBytes;
  }

  /** Flush and close the file. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    if (this.fd > 2) closeSync(this.fd);
  }

  private openFile(): number {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const fd = openSync(this.path, 'a', 0o600);
    this.size = statSync(this.path).size;
    return fd;
  }

  /** Move the current file aside under its backup name, start a new one, then prune backups. */
  private rotate(): void {
    closeSync(this.fd);
    const ext = extname(this.path);
    const prefix = basename(this.path, ext);
    let backup = join(dirname(this.path), `${prefix}-${backupTimestamp(new Date())}${ext}`);
    // Two rotations within one millisecond would reuse a name: never overwrite a backup.
    for (let i = 1; existsSync(backup); i++) backup = join(dirname(this.path), `${prefix}-${backupTimestamp(new Date(Date.now() + i))}${ext}`);
    renameSync(this.path, backup);
    this.fd = this.openFile();
    this.prune(prefix, ext);
  }

  /** lumberjack's millRun: drop backups beyond maxBackups (newest kept) and older than maxAge. */
  private prune(prefix: string, ext: string): void {
    const dir = dirname(this.path);
    const backups: { file: string; t: number }[] = [];
    for (const f of readdirSync(dir)) {
      if (!f.startsWith(`${prefix}-`) || !f.endsWith(ext)) continue;
      const t = parseBackupTimestamp(f.slice(prefix.length + 1, f.length - ext.length));
      if (t !== undefined) backups.push({ file: f, t });
    }
    backups.sort((a, b) => b.t - a.t);
    let remove: typeof backups = [];
    if (this.opts.maxBackups > 0 && backups.length > this.opts.maxBackups) remove = backups.slice(this.opts.maxBackups);
    if (this.opts.maxAgeDays > 0) {
      const cutoff = Date.now() - this.opts.maxAgeDays * DAY_MS;
      for (const b of backups) if (b.t < cutoff && !remove.includes(b)) remove.push(b);
    }
    for (const b of remove) unlinkSync(join(dir, b.file));
  }
}
