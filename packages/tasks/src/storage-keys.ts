/**
 * Where a task's files live in storage; the only place these names are written.
 * Uploads wait for the worker; results are what the links point at.
 */

/** A task's uploaded source file `index` (multipart edits). */
export function uploadKey(taskId: string, index: number): string {
  return `uploads/${taskId}/${index}`;
}

export function uploadsPrefix(taskId: string): string {
  return `uploads/${taskId}/`;
}

/** A result file: each run writes its own names, so a run that lost its lease never touches the winner's. */
export function resultKey(taskId: string, run: string, position: number, ext: string): string {
  return `results/${taskId}/${run}-${position}.${ext}`;
}

export function resultsPrefix(taskId: string): string {
  return `results/${taskId}/`;
}
