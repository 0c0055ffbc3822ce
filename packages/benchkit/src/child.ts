/** Child-process servers of benches and multi-process tests. */
/** Passed to children started by `startChildServer`, so they know a parent holds their stdin. */
const CHILD_FLAG = "--bench-child";

export interface ChildServer<T> {
  /** The JSON object the child printed as its first stdout line. */
  info: T;
  stop(): Promise<void>;
}

/**
 * Starts `bun run <file>` and waits (at most `timeoutMs`) for the one JSON line it
 * prints on stdout once it listens. Later output is passed on to stderr. `stop` sends
 * SIGTERM, then SIGKILL after 5 s. The child's stdin is a pipe held by this process,
 * so a child that watches it also ends when this process dies abruptly.
 */
export async function startChildServer<T>(
  file: string,
  parse: (value: unknown) => T,
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<ChildServer<T>> {
  const child = Bun.spawn(["bun", "run", file, CHILD_FLAG], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
    env: { ...process.env, ...options.env },
  });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await child.exited;
    clearTimeout(killer);
  };

  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  const firstLine = async (): Promise<string> => {
    for (;;) {
      const newline = buffered.indexOf("\n");
      if (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        return line;
      }
      const { done, value } = await reader.read();
      if (done) throw new Error(`${file} exited before printing its address`);
      buffered += decoder.decode(value, { stream: true });
    }
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${file} did not start within ${options.timeoutMs ?? 30_000} ms`)),
      options.timeoutMs ?? 30_000,
    );
  });
  try {
    const line = await Promise.race([firstLine(), timeout]);
    const info = parse(JSON.parse(line));
    // Keep draining stdout so a chatty child never blocks on a full pipe.
    void (async () => {
      if (buffered) process.stderr.write(buffered);
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        process.stderr.write(value);
      }
    })().catch(() => {});
    return { info, stop };
  } catch (error) {
    await stop();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * In a child started by `startChildServer`, ends the process when its stdin closes:
 * the parent bench died. Run by hand, the child ignores stdin.
 */
export function exitWithParent(shutdown: (reason: string) => void): void {
  if (!process.argv.includes(CHILD_FLAG)) return;
  void (async () => {
    for await (const _chunk of Bun.stdin.stream()) {
      // Nothing is ever sent; the loop only ends when the pipe closes.
    }
    shutdown("stdin closed");
  })().catch(() => shutdown("stdin error"));
}

/** Reads a string field of an unknown JSON value, or throws. */
export function stringField(value: unknown, field: string): string {
  if (typeof value === "object" && value !== null && field in value) {
    const found: unknown = (value as Record<string, unknown>)[field];
    if (typeof found === "string") return found;
  }
  throw new Error(`expected a string "${field}" in ${JSON.stringify(value)}`);
}
