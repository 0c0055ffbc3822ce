import { expect, test } from "bun:test";
import { createLogger, errorFields } from "./logger.ts";

function capture(format?: string) {
  const lines: string[] = [];
  const logger = createLogger({
    service: "api",
    ...(format ? { format } : {}),
    destination: { write: (line: string) => void lines.push(line) },
  });
  return { logger, lines };
}

test("JSON lines carry level, time, service and the fields, and redact secret-bearing fields", () => {
  const { logger, lines } = capture();
  logger.info(
    {
      key_id: "7",
      authorization: "Bearer sk-secret-one",
      headers: { authorization: "Bearer sk-secret-two" },
      nested: { secret: "sk-secret-three", token: "t0ken-value" },
      body: '{"prompt":"private"}',
    },
    "request",
  );
  expect(lines).toHaveLength(1);
  const line = JSON.parse(lines[0]!);
  expect(line).toMatchObject({ level: "info", service: "api", msg: "request", key_id: "7" });
  expect(typeof line.time).toBe("string");
  for (const hidden of [
    "sk-secret-one",
    "sk-secret-two",
    "sk-secret-three",
    "t0ken-value",
    "private",
  ])
    expect(lines[0]).not.toContain(hidden);
});

test("levels below the configured one are dropped; an unknown level means info", () => {
  const lines: string[] = [];
  const logger = createLogger({
    service: "worker",
    level: "warn",
    destination: { write: (line: string) => void lines.push(line) },
  });
  logger.info("quiet");
  logger.warn("loud");
  expect(lines.map((line) => JSON.parse(line).msg)).toEqual(["loud"]);
  const fallback = createLogger({ service: "x", level: "chatty", destination: { write() {} } });
  expect(fallback.level).toBe("info");
});

test("an error's fields: name and message, its code and its cause", () => {
  const error = Object.assign(new Error("connect refused", { cause: new TypeError("socket") }), {
    code: "ECONNREFUSED",
  });
  expect(errorFields(error)).toEqual({
    err: "Error: connect refused",
    code: "ECONNREFUSED",
    cause: "TypeError: socket",
  });
  expect(errorFields("plain")).toEqual({ err: "plain" });
});
