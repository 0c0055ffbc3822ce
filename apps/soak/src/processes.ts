import { join } from "node:path";

/** How a process tells it is ready: a line it prints, or an HTTP probe answering 200. */
export type Readiness = { pattern: RegExp } | { probeUrl: string };

export interface ManagedProcessOptions {
  /** e.g. "api-1", "worker-3"; names its log files. */
  name: string;
  file: string;
  env: Record<string, string>;
  readiness: Readiness;
  /** Folder of the run's logs: one file per incarnation, `soak-<name>.<n>.log`. */
  logDir: string;
  startTimeoutMs?: number;
}

/**
 * One api or worker process of the deployment that the soak starts, SIGKILLs and starts
 * again. Every incarnation logs to its own file (`<name>.<n>.log`); `incarnation` counts
 * starts, so a call can tell whether the process that served it died meanwhile.
 */
export class ManagedProcess {
  private proc: ReturnType<typeof Bun.spawn> | null = null;
  incarnation = 0;
  /** Date.now() of each SIGKILL the soak sent. */
  readonly kills: number[] = [];
  up = false;

  constructor(private readonly options: ManagedProcessOptions) {}

  get name(): string {
    return this.options.name;
  }

  get pid(): number | null {
    return this.proc?.pid ?? null;
  }

  /** Starts a new incarnation and resolves once it is ready (or throws with its output). */
  async start(): Promise<void> {
    const { name, file, env, logDir, readiness } = this.options;
    this.incarnation++;
    const logFile = join(logDir, `soak-${name}.${this.incarnation}.log`);
    const proc = Bun.spawn(["bun", "run", file], {
      env: { ...process.env, ...env },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    this.proc = proc;
    const sink = Bun.file(logFile).writer();
    let text = "";
    let ready: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      ready = resolve;
    });
    const pump = async (stream: ReadableStream<Uint8Array>) => {
      const decoder = new TextDecoder();
      for await (const chunk of stream) {
        const piece = decoder.decode(chunk, { stream: true });
        sink.write(piece);
        if (text.length < 64 * 1024) text += piece;
        if ("pattern" in readiness && readiness.pattern.test(text)) ready();
      }
    };
    void Promise.allSettled([
      pump(proc.stdout as ReadableStream<Uint8Array>),
      pump(proc.stderr as ReadableStream<Uint8Array>),
    ]).then(() => sink.end());
    if ("probeUrl" in readiness) void this.probe(readiness.probeUrl, proc, ready);
    const exited = proc.exited.then((code) => {
      throw new Error(`${name} exited (${code}) before it was ready; see ${logFile}:\n${text}`);
    });
    const timeoutMs = this.options.startTimeoutMs ?? 60_000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${name} not ready within ${timeoutMs} ms; see ${logFile}`)),
        timeoutMs,
      );
    });
    try {
      await Promise.race([started, exited, late]);
    } finally {
      clearTimeout(timer);
    }
    void exited.catch(() => {});
    void proc.exited.then(() => {
      if (this.proc === proc) this.up = false;
    });
    this.up = true;
  }

  private async probe(url: string, proc: ReturnType<typeof Bun.spawn>, ready: () => void) {
    while (proc.exitCode === null && proc.signalCode === null) {
      try {
        const answer = await fetch(url, { signal: AbortSignal.timeout(1_000) });
        if (answer.ok) return ready();
      } catch {}
      await Bun.sleep(100);
    }
  }

  /** SIGKILL: no shutdown, no grace; what it held is left for recovery to find. */
  async kill(): Promise<void> {
    const proc = this.proc;
    if (!proc) return;
    this.up = false;
    this.kills.push(Date.now());
    proc.kill("SIGKILL");
    await proc.exited;
  }

  /** SIGTERM and wait (SIGKILL after `graceMs`), at the end of the run. */
  async stop(graceMs = 10_000): Promise<void> {
    const proc = this.proc;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    this.up = false;
    proc.kill("SIGTERM");
    const killer = setTimeout(() => proc.kill("SIGKILL"), graceMs);
    await proc.exited;
    clearTimeout(killer);
  }

  /** For the exit handler: no waiting. */
  killNow(): void {
    this.proc?.kill("SIGKILL");
  }
}
