import { createHash, randomUUID } from "node:crypto";
import { join } from "node:path";
import { loadLua, type RedisClient, runLua } from "@gw/store";

const releaseTurn = loadLua(join(import.meta.dir, "lua", "releaseTurn-1.lua"));

/** A turn outlives any creation (reserve, one transaction, confirm) by far. */
const TURN_TTL_MS = 10_000;
/** A copy waits at most this long for another copy's turn, then goes ahead itself. */
const MAX_WAIT_MS = 15_000;

export interface Turn<T> {
  /** The task this key already made, if any (it throws on a key reused for another request). */
  earlier(): Promise<T | null>;
  /** Makes the task; runs only while this copy holds the turn. */
  create(): Promise<T>;
}

/**
 * Lets copies of one Idempotency-Key take turns creating its task, across api
 * processes: one copy holds a short Redis turn while it reserves funds and records the
 * task, the others wait (holding no Postgres connection) and then answer with its task,
 * never with a funds error caused by its hold. If Redis loses the turn (a flush), two
 * copies may create at once; the unique index on (account, key) still keeps one task,
 * and the caller answers the loser with the winner's task.
 */
export async function inTurn<T>(
  redis: RedisClient,
  prefix: string,
  userId: bigint,
  idempotencyKey: string,
  turn: Turn<T>,
): Promise<T> {
  const digest = createHash("sha256").update(idempotencyKey).digest("hex").slice(0, 32);
  const key = `${prefix}:{u:${userId}}:turn:${digest}`;
  const token = randomUUID();
  const deadline = Date.now() + MAX_WAIT_MS;
  for (let pauseMs = 10; ; pauseMs = Math.min(pauseMs * 2, 200)) {
    const earlier = await turn.earlier();
    if (earlier) return earlier;
    const taken = (await redis.set(key, token, "PX", TURN_TTL_MS, "NX")) === "OK";
    if (taken || Date.now() > deadline) {
      try {
        return await turn.create();
      } finally {
        if (taken) await runLua(redis, releaseTurn, [key], [token]);
      }
    }
    await Bun.sleep(pauseMs / 2 + Math.random() * pauseMs);
  }
}
