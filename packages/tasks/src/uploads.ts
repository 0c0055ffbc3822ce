/** A source file sent in a multipart edit, held until the task's worker reads it. */
export interface Upload {
  bytes: Uint8Array;
  contentType: string;
  filename: string;
}

const REF = /^upload:(\d{1,2})$/;

/** The index of an `upload:<n>` reference, or null for anything else (a URL). */
export function isUploadRef(value: string): number | null {
  const match = REF.exec(value);
  return match ? Number(match[1]) : null;
}

export function uploadRef(index: number): string {
  return `upload:${index}`;
}
