import { expect, test } from "bun:test";
import { DEFAULT_BACKOFF, nextDelay, supervise } from "./supervise.ts";

const quick = { initialMs: 20, maxMs: 80, healthyAfterMs: 1_000 };
const lines: string[] = [];
const log = (line: string) => lines.push(line);

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await Bun.sleep(10);
}

test("a killed child is started again, and the others keep running", async () => {
  const supervisor = supervise(
    [
      { name: "worker", cmd: ["bun", "-e", "setInterval(() => {}, 1000)"] },
      { name: "api", cmd: ["bun", "-e", "setInterval(() => {}, 1000)"] },
    ],
    { backoff: quick, log },
  );
  await until(() => supervisor.current("worker") !== undefined);
  const api = supervisor.current("api");
  supervisor.current("worker")?.kill("SIGKILL");
  await until(
    () => supervisor.starts("worker") === 2 && supervisor.current("worker") !== undefined,
  );
  expect(supervisor.starts("worker")).toBe(2);
  expect(supervisor.current("api")).toBe(api);
  expect(api?.exitCode).toBeNull();
  expect(lines.some((line) => line.includes("worker exited (SIGKILL); restarting"))).toBe(true);
  await supervisor.stop(2_000);
  expect(supervisor.current("api")).toBeUndefined();
  expect(supervisor.current("worker")).toBeUndefined();
});

test("a child that keeps crashing is restarted with growing delays, and stop ends it for good", async () => {
  const supervisor = supervise([{ name: "crasher", cmd: ["bun", "-e", "process.exit(3)"] }], {
    backoff: quick,
    log,
  });
  await until(() => supervisor.starts("crasher") >= 4);
  expect(supervisor.starts("crasher")).toBeGreaterThanOrEqual(4);
  await supervisor.stop(1_000);
  const after = supervisor.starts("crasher");
  await Bun.sleep(200);
  expect(supervisor.starts("crasher")).toBe(after);
});

test("stop sends SIGTERM so a child can drain, and SIGKILL after the grace period", async () => {
  const supervisor = supervise(
    [
      {
        name: "stubborn",
        cmd: ["bun", "-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"],
      },
    ],
    { backoff: quick, log },
  );
  await until(() => supervisor.current("stubborn") !== undefined);
  await Bun.sleep(150);
  const proc = supervisor.current("stubborn");
  const begun = Date.now();
  await supervisor.stop(300);
  expect(Date.now() - begun).toBeGreaterThanOrEqual(250);
  expect(proc?.signalCode).toBe("SIGKILL");
});

test("backoff doubles up to its cap and resets once a child has run long enough", () => {
  expect(nextDelay(0, 10, DEFAULT_BACKOFF)).toBe(500);
  expect(nextDelay(500, 10, DEFAULT_BACKOFF)).toBe(1_000);
  expect(nextDelay(16_000, 10, DEFAULT_BACKOFF)).toBe(30_000);
  expect(nextDelay(30_000, 10, DEFAULT_BACKOFF)).toBe(30_000);
  expect(nextDelay(30_000, 60_000, DEFAULT_BACKOFF)).toBe(500);
});
