// Proves the startup line names both backends and never prints a password.
import { expect, test } from "bun:test";
import { describeBackends } from "./describe.ts";

test("passwords are hidden, hosts are shown", () => {
  const line = describeBackends(
    "postgres://app:s3cret@db.internal:5432/gw",
    "redis://:hunter2@cache:6379",
  );
  expect(line).toContain("db.internal:5432");
  expect(line).toContain("cache:6379");
  expect(line).not.toContain("s3cret");
  expect(line).not.toContain("hunter2");
});
