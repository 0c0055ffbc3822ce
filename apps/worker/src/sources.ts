import { type SourceImage, sniffImage, sourceSizeProblem } from "@gw/providers";
import type { SafeFetcher } from "@gw/safe-fetch";
import type { Storage } from "@gw/storage";
import type { Sql } from "@gw/store";
import type { Catalog } from "@gw/tariffs";
import { findOwnTask, isUploadRef, type TaskRow, uploadKey } from "@gw/tasks";

export interface SourceDeps {
  sql: Sql;
  storage: Storage;
  fetcher: SafeFetcher;
  catalog: Catalog;
}

/**
 * A source that could not be read is `source_unavailable`; one that was read but is not an
 * image the gateway processes (another format, a declared size over the pixel limits) is
 * `source_invalid`. Both are the client's input: the task fails once, never retried.
 */
export type Sources =
  | { ok: true; images: SourceImage[] }
  | { ok: false; code: "source_unavailable" | "source_invalid"; message: string };

const FORMATS = new Set(["png", "jpeg", "webp"]);

/** The file fields of the task's operation, in schema order, with their values. */
function fileFields(deps: SourceDeps, task: TaskRow): [field: string, values: string[]][] {
  const fields = deps.catalog.get(task.model)?.operations.get(task.operation)?.fields ?? {};
  const found: [string, string[]][] = [];
  for (const [name, field] of Object.entries(fields)) {
    if (field.type !== "url" && field.type !== "url_list") continue;
    const value = task.input[name];
    const values = Array.isArray(value) ? value : typeof value === "string" ? [value] : [];
    if (values.length > 0) found.push([name, values.map(String)]);
  }
  return found;
}

async function readOne(
  deps: SourceDeps,
  task: TaskRow,
  value: string,
  signal: AbortSignal,
): Promise<{ ok: true; bytes: Uint8Array } | { ok: false; message: string }> {
  const upload = isUploadRef(value);
  if (upload !== null) {
    const stored = await deps.storage.get(uploadKey(task.id, upload));
    return stored
      ? { ok: true, bytes: stored.bytes }
      : { ok: false, message: "an uploaded file is gone" };
  }
  const fetched = await deps.fetcher.fetch(value, signal);
  if (!fetched.ok) return { ok: false, message: `${value.slice(0, 200)}: ${fetched.message}` };
  return { ok: true, bytes: fetched.bytes };
}

/** Spec 4.2 rule 6: the first result of an earlier completed image task of the same owner. */
async function readTaskSource(deps: SourceDeps, task: TaskRow, taskId: string): Promise<Sources> {
  const earlier = await findOwnTask(deps.sql, taskId, task.user_id);
  const file = earlier?.status === "completed" ? earlier.result?.files[0] : undefined;
  const stored = file ? await deps.storage.get(file.key) : null;
  if (!stored)
    return {
      ok: false,
      code: "source_unavailable",
      message: `task ${taskId} has no result file (any more)`,
    };
  const sniffed = sniffImage(stored.bytes);
  const tooLarge = sniffed ? sourceSizeProblem(sniffed) : "is not an image";
  if (tooLarge)
    return { ok: false, code: "source_invalid", message: `task ${taskId}'s result ${tooLarge}` };
  return {
    ok: true,
    images: [
      {
        field: "task_id",
        bytes: stored.bytes,
        contentType: file!.content_type,
        filename: "source",
      },
    ],
  };
}

/**
 * Reads every source file of a task: uploads from storage, client URLs through the
 * SSRF-safe fetcher, an earlier task's result by its id. Each must be a PNG, JPEG or
 * WebP image within the source pixel limits (by its header, never decoded); anything else
 * fails the task before the upstream is called.
 */
export async function readSources(
  deps: SourceDeps,
  task: TaskRow,
  signal: AbortSignal,
): Promise<Sources> {
  const images: SourceImage[] = [];
  if (typeof task.input.task_id === "string") {
    const source = await readTaskSource(deps, task, task.input.task_id);
    if (!source.ok) return source;
    images.push(...source.images);
  }
  for (const [field, values] of fileFields(deps, task)) {
    for (const [index, value] of values.entries()) {
      const read = await readOne(deps, task, value, signal);
      const name = `source image ${field}[${index}]`;
      if (!read.ok)
        return { ok: false, code: "source_unavailable", message: `${name}: ${read.message}` };
      const sniffed = sniffImage(read.bytes);
      if (!sniffed || !FORMATS.has(sniffed.format))
        return {
          ok: false,
          code: "source_invalid",
          message: `${name} is not a PNG, JPEG or WebP image`,
        };
      const tooLarge = sourceSizeProblem(sniffed);
      if (tooLarge) return { ok: false, code: "source_invalid", message: `${name} ${tooLarge}` };
      images.push({
        field,
        bytes: read.bytes,
        contentType: `image/${sniffed.format}`,
        filename: `${field}-${index}.${sniffed.format === "jpeg" ? "jpg" : sniffed.format}`,
      });
    }
  }
  return { ok: true, images };
}
