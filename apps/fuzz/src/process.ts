/** One child process of the fuzz deployment (an api or a worker), with its output kept. */
export interface ChildProcess {
  proc: ReturnType<typeof Bun.spawn>;
  /** The last output it printed (bounded), for a report when it dies or misbehaves. */
  output(): string;
  /** True once the process has exited, whatever the cause. */
  exited(): boolean;
  stop(graceMs?: number): Promise<void>;
}

/** The tail of a child's output kept in memory: enough to explain a crash. */
const OUTPUT_KEEP_CHARS = 256 * 1024;

/**
 * Spawns `bun run <file>` and resolves once its output matches `ready`, or rejects with
 * that output when it exits first or does not start within `startTimeoutMs`.
 */
export async function spawnChild(
  file: string,
  env: Record<string, string>,
  ready: RegExp,
  startTimeoutMs = 60_000,
): Promise<ChildProcess & { match: RegExpExecArray }> {
  const proc = Bun.spawn(["bun", "run", file], {
    env: { ...process.env, ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let text = "";
  let done = false;
  let started: (match: RegExpExecArray) => void = () => {};
  const matched = new Promise<RegExpExecArray>((resolve) => {
    started = resolve;
  });
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      text += decoder.decode(chunk, { stream: true });
      if (text.length > OUTPUT_KEEP_CHARS) text = text.slice(-OUTPUT_KEEP_CHARS / 2);
      const match = ready.exec(text);
      if (match) started(match);
    }
  };
  void pump(proc.stdout as ReadableStream<Uint8Array>);
  void pump(proc.stderr as ReadableStream<Uint8Array>);
  void proc.exited.then(() => {
    done = true;
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const failed = new Promise<never>((_, reject) => {
    void proc.exited.then((code) => reject(new Error(`${file} exited (${code}):\n${text}`)));
    timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`${file} did not start within ${startTimeoutMs} ms:\n${text}`));
    }, startTimeoutMs);
  });
  failed.catch(() => {});
  try {
    const match = await Promise.race([matched, failed]);
    return {
      proc,
      match,
      output: () => text,
      exited: () => done,
      async stop(graceMs = 10_000) {
        if (done) return;
        proc.kill("SIGTERM");
        const killer = setTimeout(() => proc.kill("SIGKILL"), graceMs);
        await proc.exited;
        clearTimeout(killer);
      },
    };
  } finally {
    clearTimeout(timer);
  }
}
