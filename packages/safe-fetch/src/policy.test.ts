// Proves the URL check refuses what checkPublicUrl refuses except the exactly allowed
// hosts (by name, IP literal, and port), and that the environment is parsed or refused
// with a message naming the variable.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createUrlCheck, urlPolicyFromEnv } from "./policy.ts";
import { TEST_CA_FILE, TEST_CA_PEM } from "./testing/index.ts";

describe("createUrlCheck", () => {
  test("without allowed hosts it judges like checkPublicUrl", () => {
    const check = createUrlCheck({ allowHosts: [] });
    expect(check("https://images.example.com/cat.png")).toBeNull();
    expect(check("http://images.example.com/cat.png")).toContain("not https");
    expect(check("https://user:pw@images.example.com/")).toContain("credentials");
    expect(check("https://127.0.0.1:8443/")).toContain("private");
    expect(check("https://[::1]/")).toContain("private");
    expect(check("https://localhost:8443/")).not.toBeNull();
    expect(check("https://metadata.internal/")).toContain("local name");
    expect(check("not a url")).toBe("not a valid URL");
  });

  test("admits an allowed host on the allowed port only", () => {
    const check = createUrlCheck({ allowHosts: ["127.0.0.1:8443", "localhost:9443"] });
    expect(check("https://127.0.0.1:8443/x")).toBeNull();
    expect(check("https://localhost:9443/x")).toBeNull();
    expect(check("https://LOCALHOST.:9443/x")).toBeNull();
    expect(check("https://127.0.0.1:8444/x")).not.toBeNull();
    expect(check("https://127.0.0.1/x")).not.toBeNull();
    expect(check("https://localhost:8443/x")).not.toBeNull();
  });

  test("a host without a port admits every port; :443 means the default port only", () => {
    const check = createUrlCheck({ allowHosts: ["stub.internal", "10.1.2.3:443"] });
    expect(check("https://stub.internal/x")).toBeNull();
    expect(check("https://stub.internal:8443/x")).toBeNull();
    expect(check("https://10.1.2.3/x")).toBeNull();
    expect(check("https://10.1.2.3:8443/x")).not.toBeNull();
  });

  test("IPv6 entries match in any spelling, bare or bracketed", () => {
    const check = createUrlCheck({ allowHosts: ["::1", "[fd00::7]:8443"] });
    expect(check("https://[0:0::1]:1234/x")).toBeNull();
    expect(check("https://[fd00:0::7]:8443/x")).toBeNull();
    expect(check("https://[fd00::7]:8444/x")).not.toBeNull();
  });

  test("an allowed host still needs https and no credentials", () => {
    const check = createUrlCheck({ allowHosts: ["127.0.0.1:8443"] });
    expect(check("http://127.0.0.1:8443/x")).toContain("not https");
    expect(check("https://a:b@127.0.0.1:8443/x")).not.toBeNull();
  });

  test("a malformed allowed host is refused when the check is built", () => {
    expect(() => createUrlCheck({ allowHosts: ["https://x.example/"] })).toThrow(/not a host/);
  });
});

describe("urlPolicyFromEnv", () => {
  test("defaults to no allowed hosts and no extra CA", () => {
    expect(urlPolicyFromEnv({})).toEqual({ allowHosts: [] });
    expect(urlPolicyFromEnv({ FETCH_ALLOW_HOSTS: " , " })).toEqual({ allowHosts: [] });
  });

  test("reads comma-separated hosts", () => {
    const policy = urlPolicyFromEnv({ FETCH_ALLOW_HOSTS: "127.0.0.1:8443, localhost:9443,::1" });
    expect(policy.allowHosts).toEqual(["127.0.0.1:8443", "localhost:9443", "::1"]);
  });

  test.each([
    "https://127.0.0.1",
    "127.0.0.1/path",
    "user@host.example",
    "host.example:99999",
    "host.example:port",
    "[::1",
  ])("refuses FETCH_ALLOW_HOSTS entry %p", (entry) => {
    expect(() => urlPolicyFromEnv({ FETCH_ALLOW_HOSTS: `localhost,${entry}` })).toThrow(
      `FETCH_ALLOW_HOSTS: "${entry}" is not a host or host:port`,
    );
  });

  test("reads the certificates of FETCH_EXTRA_CA_FILE", () => {
    const policy = urlPolicyFromEnv({ FETCH_EXTRA_CA_FILE: TEST_CA_FILE });
    expect(policy.caCerts).toEqual([TEST_CA_PEM.trim()]);
  });

  test("refuses an unreadable, empty or corrupt FETCH_EXTRA_CA_FILE", () => {
    const dir = mkdtempSync(join(tmpdir(), "safe-fetch-"));
    const empty = join(dir, "empty.pem");
    const corrupt = join(dir, "corrupt.pem");
    writeFileSync(empty, "no certificate here\n");
    writeFileSync(
      corrupt,
      "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n",
    );
    const read = (path: string) => () => urlPolicyFromEnv({ FETCH_EXTRA_CA_FILE: path });
    expect(read(join(dir, "missing.pem"))).toThrow(/FETCH_EXTRA_CA_FILE: cannot read .*ENOENT/);
    expect(read(empty)).toThrow(/FETCH_EXTRA_CA_FILE: .* holds no PEM certificate/);
    expect(read(corrupt)).toThrow(/FETCH_EXTRA_CA_FILE: certificate 1 in .* is not valid/);
    rmSync(dir, { recursive: true });
  });
});
