/**
 * `bun run start`: the whole gateway on this machine. Installs dependencies if needed,
 * picks Postgres and Redis (the configured ones, the local default ports, or embedded
 * ones), applies migrations, makes a demo account with $10 and a key, then runs the api
 * and a worker as supervised child processes (a crashed one is restarted with backoff)
 * until interrupted.
 */
import { join, resolve } from "node:path";
import { ensureInstalled } from "./ensure-install.ts";

const root = resolve(import.meta.dir, "..");
const dataDir = resolve(process.env.DATA_DIR || join(root, ".data"));

ensureInstalled(root, "start");

const { BackendError, resolveBackends } = await import("@gw/store/embedded");
const { connectPostgres, connectRedis, migrate } = await import("@gw/store");
const { ensureDemo } = await import("./demo.ts");
const { supervise } = await import("@gw/supervisor");

const production = process.env.NODE_ENV === "production";
let backends: Awaited<ReturnType<typeof resolveBackends>>;
try {
  backends = await resolveBackends(process.env, { dataDir, poolMax: 20 });
} catch (error) {
  if (error instanceof BackendError) {
    console.error(`[start] ${error.message}`);
    process.exit(1);
  }
  throw error;
}

const prefix = process.env.REDIS_PREFIX || "gw";
const sql = connectPostgres(backends.databaseUrl, { max: 2 });
const redis = connectRedis(backends.redisUrl);
await migrate(sql);
const demo = production ? null : await ensureDemo(sql, redis, dataDir, prefix);
await sql.end();
redis.disconnect();

const port = process.env.PORT || "3000";
// The operator's own admin token is theirs to know: the banner never prints it.
const operatorToken = Boolean(process.env.ADMIN_TOKEN);
const env = {
  // Human-readable log lines on this terminal unless asked otherwise (LOG_FORMAT=json).
  LOG_FORMAT: production ? "json" : "pretty",
  ...process.env,
  DATABASE_URL: backends.databaseUrl,
  REDIS_URL: backends.redisUrl,
  PORT: port,
  DATA_DIR: dataDir,
  ...(demo ? { ADMIN_TOKEN: demo.adminToken, RESULT_LINK_SECRET: demo.linkSecret } : {}),
};
const supervisor = supervise(
  [
    { name: "api", cmd: ["bun", "run", join(root, "apps/api/src/main.ts")], env },
    { name: "worker", cmd: ["bun", "run", join(root, "apps/worker/src/main.ts")], env },
  ],
  { log: (line) => console.error(line) },
);

// A child that exits on its own is restarted with backoff; only a signal stops the gateway.
// The api drains its requests in flight (API_SHUTDOWN_GRACE_MS) before it exits.
const graceMs = Number(process.env.API_SHUTDOWN_GRACE_MS ?? 60_000) + 15_000;
let stopping = false;
async function stop(): Promise<never> {
  if (!stopping) {
    stopping = true;
    await supervisor.stop(graceMs);
    await backends.stop();
  }
  process.exit(0);
}
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());

if (demo) {
  const base = `http://localhost:${port}`;
  for (let attempt = 0; attempt < 100; attempt++) {
    const ready = await fetch(`${base}/v1/balance`, {
      headers: { authorization: `Bearer ${demo.secret}` },
    }).catch(() => null);
    if (ready?.ok) break;
    await Bun.sleep(100);
  }
  console.log(
    [
      "",
      "=== gateway ready ==================================================",
      `  api          ${base}   (OpenAPI page: ${base}/swagger)`,
      `  demo key     ${demo.secret}   (account ${demo.userId}, $10 to start; kept in ${join(dataDir, "demo-key")})`,
      operatorToken
        ? "  admin token  (the ADMIN_TOKEN you set)"
        : `  admin token  ${demo.adminToken}   (kept in ${join(dataDir, "admin-token")}; set ADMIN_TOKEN to use your own)`,
      `  health       ${base}/healthz, ${base}/readyz   metrics: ${base}/metrics (admin token)`,
      "  admin CLI    bun run admin users list   (reads the token from .data/admin-token)",
      "  try:",
      `    curl -s ${base}/v1/balance -H "Authorization: Bearer ${demo.secret}"`,
      `    curl -s ${base}/v1/images/generations -H "Authorization: Bearer ${demo.secret}" \\`,
      `      -H "Content-Type: application/json" -d '{"model":"lumina-image","prompt":"a lighthouse at dusk"}'`,
      "===================================================================",
      "",
    ].join("\n"),
  );
}
