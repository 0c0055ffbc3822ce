// Proves docker-compose.yml (at the repository root) keeps the operations contract: the
// api and worker have healthchecks on their own ports, a restart policy and a stop grace
// longer than their shutdown grace; Postgres and Redis publish no port and need a
// password; the api publishes one fixed port.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../../..");

// biome-ignore lint/suspicious/noExplicitAny: a parsed YAML document is walked freely in assertions.
type Tree = any;
const compose: Tree = Bun.YAML.parse(readFileSync(resolve(ROOT, "docker-compose.yml"), "utf8"));
const services = compose.services as Record<string, Tree>;

/** `${NAME:-default}` as its default, the value a stack gets when NAME is unset. */
function defaultOf(value: string): number {
  const match = /^\$\{[A-Z_]+:-(\d+)\}$/.exec(value);
  if (!match) throw new Error(`not a \${NAME:-default}: ${value}`);
  return Number(match[1]);
}

/** A compose duration (`75s`, `1m30s`) in milliseconds. */
function durationMs(value: string): number {
  const match = /^(?:(\d+)m)?(?:(\d+)s)?$/.exec(value);
  if (!match || value === "") throw new Error(`not a duration: ${value}`);
  return (Number(match[1] ?? 0) * 60 + Number(match[2] ?? 0)) * 1000;
}

describe("api and worker", () => {
  const probes = { api: "http://127.0.0.1:3000/healthz", worker: "http://127.0.0.1:9464/healthz" };

  for (const [name, url] of Object.entries(probes)) {
    test(`${name}: a healthcheck on its own port, with the script the image carries`, () => {
      const check = services[name].healthcheck;
      expect(check.test).toEqual(["CMD", "bun", "apps/deploy/src/healthcheck.ts", url]);
      expect(existsSync(resolve(ROOT, "apps/deploy/src/healthcheck.ts"))).toBe(true);
      for (const field of ["interval", "timeout", "start_period"])
        expect(durationMs(check[field])).toBeGreaterThan(0);
      expect(check.retries).toBeGreaterThan(0);
    });

    test(`${name}: comes back after a crash`, () => {
      expect(["always", "unless-stopped", "on-failure"]).toContain(services[name].restart);
    });
  }

  test("the probed ports are the ones the apps listen on", () => {
    expect(services.api.environment.PORT).toBe("3000");
    expect(services.worker.environment.WORKER_HTTP_PORT).toBe("9464");
  });

  test("Docker waits longer than each app's own shutdown grace before it kills", () => {
    const api = services.api;
    const worker = services.worker;
    expect(durationMs(api.stop_grace_period)).toBeGreaterThan(
      defaultOf(api.environment.API_SHUTDOWN_GRACE_MS),
    );
    expect(durationMs(worker.stop_grace_period)).toBeGreaterThan(
      defaultOf(worker.environment.WORKER_SHUTDOWN_GRACE_MS),
    );
  });

  test("the api publishes one fixed, overridable port; the worker none", () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's own interpolation, read literally.
    expect(services.api.ports).toEqual(["${API_PORT:-3000}:3000"]);
    expect(services.worker.ports).toBeUndefined();
  });

  test("both reach the backends with their passwords", () => {
    for (const name of ["api", "worker"]) {
      const env = services[name].environment;
      expect(env.DATABASE_URL).toStartWith("postgres://postgres:${POSTGRES_PASSWORD:?");
      expect(env.REDIS_URL).toStartWith("redis://:${REDIS_PASSWORD:?");
    }
  });
});

describe("postgres and redis", () => {
  test("publish no port", () => {
    expect(services.postgres.ports).toBeUndefined();
    expect(services.redis.ports).toBeUndefined();
  });

  test("postgres has no trust auth and a required password", () => {
    const env = services.postgres.environment;
    expect(env.POSTGRES_HOST_AUTH_METHOD).toBeUndefined();
    expect(env.POSTGRES_PASSWORD).toStartWith("${POSTGRES_PASSWORD:?");
    expect(JSON.stringify(services.postgres)).not.toContain("trust");
  });

  test("redis requires the password its healthcheck authenticates with", () => {
    const { command, environment, healthcheck } = services.redis;
    expect(command[command.indexOf("--requirepass") + 1]).toStartWith("${REDIS_PASSWORD:?");
    expect(environment.REDISCLI_AUTH).toStartWith("${REDIS_PASSWORD");
    expect(healthcheck.test.join(" ")).toContain("grep -q PONG");
  });
});

const dockerCompose = Bun.which("docker-compose");

// Where the tool is installed (Debian's docker-compose package), it reads the file as Docker will.
test.skipIf(!dockerCompose)("docker-compose accepts the file and refuses missing secrets", () => {
  const run = (env: Record<string, string>) =>
    Bun.spawnSync([dockerCompose!, "-f", "docker-compose.yml", "config"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", ...env },
    });
  const secrets = {
    POSTGRES_PASSWORD: "compose-test-pg",
    REDIS_PASSWORD: "compose-test-redis",
    RESULT_LINK_SECRET: "compose-test-link-secret-0123456789",
  };
  const rendered = run(secrets);
  expect(rendered.exitCode).toBe(0);
  expect(rendered.stdout.toString()).toContain(
    "DATABASE_URL: postgres://postgres:compose-test-pg@postgres:5432/postgres",
  );
  for (const name of Object.keys(secrets)) {
    const missing = run({ ...secrets, [name]: "" });
    expect(missing.exitCode).not.toBe(0);
    expect(missing.stderr.toString()).toContain(`set ${name}`);
  }
});
