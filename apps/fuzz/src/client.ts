import { FUZZ_ADMIN_TOKEN } from "./stack.ts";

/** A well-formed call the fixture makes while it sets the scene (never a fuzz case). */
export class Client {
  constructor(readonly baseUrl: string) {}

  async call(
    method: string,
    path: string,
    options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<{ status: number; body: unknown }> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["content-type"] = "application/json";
    }
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      body,
      signal: AbortSignal.timeout(120_000),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: response.status, body: parsed };
  }

  admin(method: string, path: string, body?: unknown) {
    return this.call(method, path, { key: FUZZ_ADMIN_TOKEN, body });
  }

  /** Like `call`, but throws unless the answer has the expected status. */
  async expect<T>(
    status: number,
    method: string,
    path: string,
    options: { key?: string; body?: unknown; admin?: boolean } = {},
  ): Promise<T> {
    const answer = options.admin
      ? await this.admin(method, path, options.body)
      : await this.call(method, path, options);
    if (answer.status !== status)
      throw new Error(
        `fixture: ${method} ${path} answered ${answer.status}, not ${status}: ${JSON.stringify(answer.body).slice(0, 500)}`,
      );
    return answer.body as T;
  }
}
