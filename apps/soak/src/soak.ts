import { Random } from "@gw/random";
import { adminClient, createPopulation, type Population } from "./accounts.ts";
import type { Check } from "./check.ts";
import type { ApiTarget, CallRecord } from "./client.ts";
import { type Deployment, startDeployment } from "./deployment.ts";
import { drain } from "./drain.ts";
import { planEvents } from "./fault-schedule.ts";
import { type Credit, createFaultRunner } from "./faults.ts";
import { callChecks } from "./invariants-calls.ts";
import { ledgerChecks } from "./invariants-ledger.ts";
import { compareRedis, redisCheck } from "./invariants-redis.ts";
import { loadTaskMoney, type TaskMoney, taskChecks } from "./invariants-tasks.ts";
import { runLoad } from "./load.ts";
import { createPlanner } from "./load-mix.ts";
import type { SoakOptions } from "./options.ts";
import type { SoakResult } from "./report.ts";
import { startUpstreams, type Upstreams } from "./upstreams.ts";

async function moneyTotals(deployment: Deployment): Promise<SoakResult["money"]> {
  const [row] = await deployment.sql<{ credits: bigint; charges: bigint; refunds: bigint }[]>`
    select coalesce(sum(delta_quota) filter (where kind = 'credit'), 0)::bigint as credits,
           coalesce(-sum(delta_quota) filter (where kind = 'charge'), 0)::bigint as charges,
           coalesce(sum(delta_quota) filter (where kind = 'refund'), 0)::bigint as refunds
    from ledger_entries`;
  return row!;
}

/** Every invariant, from Postgres, the clients' records and Redis. */
async function checkAll(
  d: Deployment,
  population: Population,
  credits: Credit[],
  records: CallRecord[],
): Promise<{ checks: Check[]; tasks: TaskMoney[] }> {
  const tasks = await loadTaskMoney(d.sql);
  const checks: Check[] = [
    ...(await ledgerChecks(d.sql, population.accounts, credits)),
    ...taskChecks(tasks),
    ...(await callChecks(d.sql, { records, tasks, apiKills: d.apis.map((api) => api.kills) })),
    redisCheck(await compareRedis(d.sql, d.redis, d.prefix)),
  ];
  return { checks, tasks };
}

/** The accounts, the fault schedule and its runner, before the load begins. */
async function prepare(options: SoakOptions, d: Deployment, random: Random, upstreams: Upstreams) {
  const admins = d.apiUrls.map((url) => adminClient(url, d.adminToken));
  const population = await createPopulation(admins[0]!, random.fork("accounts"), options);
  const dry = population.accounts.flatMap((account, index) => (account.dry ? [index] : []));
  const events = planEvents(random.fork("faults"), {
    calls: options.calls,
    faults: options.faults,
    window: options.faultWindow,
    workers: d.workers.length,
    apis: d.apis.length,
    dryAccounts: dry,
    topUps: options.short ? 3 : 10,
  });
  const faults = createFaultRunner(events, {
    deployment: d,
    fronts: upstreams.fronts,
    accounts: population.accounts,
    admin: (api) => admins[api]!,
  });
  return { population, faults };
}

/** The calls, spread over both api processes, with the faults firing as they start. */
function load(
  options: SoakOptions,
  d: Deployment,
  random: Random,
  population: Population,
  faults: ReturnType<typeof createFaultRunner>,
  say: (line: string) => void,
): Promise<CallRecord[]> {
  const apis: ApiTarget[] = d.apis.map((api, index) => ({
    url: d.apiUrls[index]!,
    up: () => api.up,
    incarnation: () => api.incarnation,
  }));
  return runLoad({
    calls: options.calls,
    concurrency: options.concurrency,
    plan: createPlanner(random.fork("calls"), population.keys.length, options.seed),
    client: {
      apis,
      keys: population.keys,
      seed: options.seed,
      imageWaitMs: options.timings.imageWaitTimeoutMs + 15_000,
    },
    onStart: (started) => faults.onCallStarted(started),
    onProgress: (done, ms) =>
      say(`soak: ${done}/${options.calls} calls in ${(ms / 1000).toFixed(0)} s`),
    progressEvery: options.short ? 250 : 1_000,
  });
}

/**
 * One soak run: stub upstreams behind fault fronts, a real deployment (2 api, 3 worker
 * processes, Postgres through a relay, a Redis db of its own), the accounts, the load
 * with faults on the seeded schedule, the drain, then every invariant. The deployment's
 * schema and Redis db are kept when an invariant fails (`keepOnFailure`) or with `keep`.
 */
export async function runSoak(
  options: SoakOptions,
  say: (line: string) => void = console.log,
): Promise<SoakResult> {
  const beganAt = Date.now();
  const since = () => Date.now() - beganAt;
  const random = new Random(options.seed);
  const upstreams = await startUpstreams({
    random: random.fork("upstreams"),
    faultRate: options.upstreamFaultRate,
    upstreamTimeoutMs: options.timings.upstreamTimeoutMs,
  });
  let deployment: Deployment | null = null;
  let keep = options.keep;
  try {
    const d = await startDeployment({
      timings: options.timings,
      upstreamEnv: upstreams.env,
      label: String(options.seed),
    });
    deployment = d;
    say(
      `soak: deployment up in ${since()} ms (schema ${d.schema}, Redis db ${d.redisDb}, logs in ${d.runDir})`,
    );
    const { population, faults } = await prepare(options, d, random, upstreams);
    const setupMs = since();
    const records = await load(options, d, random, population, faults, say);
    await faults.settled();
    const loadMs = since();
    say(`soak: load done in ${((loadMs - setupMs) / 1000).toFixed(1)} s; draining`);
    const drained = await drain({
      sql: d.sql,
      redis: d.redis,
      prefix: d.prefix,
      timeoutMs: options.drainTimeoutMs,
      settleMs: 2 * options.timings.reconcileIntervalMs + 1_000,
      onState: (state, ms) =>
        say(`soak: draining ${(ms / 1000).toFixed(0)} s: ${JSON.stringify(state)}`),
    });
    const drainMs = since();
    const { checks, tasks } = await checkAll(d, population, faults.credits, records);
    keep ||= options.keepOnFailure && checks.some((check) => !check.pass);
    return {
      options,
      records,
      events: faults.log,
      credits: faults.credits,
      fronts: upstreams.fronts,
      tasks,
      checks,
      drain: drained,
      timings: { setupMs, loadMs, drainMs, checkMs: since() },
      beganAt,
      schema: d.schema,
      redisDb: d.redisDb,
      runDir: d.runDir,
      kept: keep,
      money: await moneyTotals(d),
    };
  } catch (error) {
    keep ||= options.keepOnFailure;
    throw error;
  } finally {
    await deployment?.close(keep);
    await upstreams.stop();
  }
}
