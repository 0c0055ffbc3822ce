import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { BackendError } from "./errors.ts";
import { Backend, serveWire } from "./wire-server.ts";

const HOST = "127.0.0.1";

// ---------------------------------------------------------------------------------------
// Embedded Postgres
// ---------------------------------------------------------------------------------------

export interface EmbeddedPostgresOptions {
  /** Where PGlite keeps its files; created if missing. */
  dataDir: string;
  /** 0 or absent picks a free port. */
  port?: number;
  /** At least the client pool's size: a connection over the limit is refused. */
  maxConnections: number;
}

export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

/**
 * PGlite runs in-process with no lock file of its own, and two instances writing one
 * data folder corrupt it. A pid file beside the folder keeps a second local start out;
 * one left by a dead process is taken over.
 */
function lockDataDir(dataDir: string): () => void {
  const lockPath = `${resolve(dataDir)}.lock`;
  mkdirSync(dirname(lockPath), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lockPath, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number(readFileSync(lockPath, "utf8").trim());
      // This process counts too: a second PGlite on the same folder corrupts it as well.
      if (processAlive(holder)) {
        throw new BackendError(
          "POSTGRES_DATA_IN_USE",
          `The embedded Postgres data in ${dataDir} is in use by process ${holder}. ` +
            "Stop that gateway first, or set DATABASE_URL to a Postgres of your own.",
        );
      }
      rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`could not lock ${lockPath}`);
}

function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Starts PGlite persisted at `dataDir` and serves it over the Postgres protocol on
 * 127.0.0.1, so the ordinary `postgres` client code runs against it unchanged. The first
 * start initialises the folder (a few seconds); later starts resume it.
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgres> {
  mkdirSync(options.dataDir, { recursive: true });
  const unlock = lockDataDir(options.dataDir);
  let db: PGlite | undefined;
  try {
    db = await PGlite.create({ dataDir: options.dataDir });
    const wire = await serveWire(new Backend(db), options.port ?? 0, options.maxConnections);
    const opened = db;
    let stopped: Promise<void> | undefined;
    return {
      url: `postgres://postgres@${HOST}:${wire.port}/postgres`,
      stop() {
        stopped ??= (async () => {
          await wire.close();
          await opened.close();
          unlock();
        })();
        return stopped;
      },
    };
  } catch (error) {
    await db?.close().catch(() => {});
    unlock();
    throw error;
  }
}
