/**
 * The stub OpenAI Images upstream for the images bench, in its own process so that it
 * competes with neither the load generator nor the gateway for one event loop. It
 * answers every image with one small cached PNG after BENCH_STUB_LATENCY_MS, like a
 * real network service. Prints one JSON line `{"url","apiKey"}` once it serves; stops
 * on SIGTERM/SIGINT or when the parent bench's pipe closes.
 */

import { exitWithParent } from "@gw/benchkit";
import { startOpenAIImagesStub } from "@gw/providers/testing";

const latencyMs = Number(process.env.BENCH_STUB_LATENCY_MS ?? 20);
if (!Number.isFinite(latencyMs) || latencyMs < 0)
  throw new Error(`BENCH_STUB_LATENCY_MS must be a number of ms, got ${latencyMs}`);

// Only a few requests are recorded: the bench never reads them, and a long record
// would make every request pay for shifting it.
const stub = await startOpenAIImagesStub({ fast: true, latencyMs, maxRecorded: 16 });

let stopping = false;
async function shutdown(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await stub.stop().catch(() => {});
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown());
process.on("SIGINT", () => void shutdown());
exitWithParent(() => void shutdown());

console.log(JSON.stringify({ url: stub.url, apiKey: stub.apiKey }));
