// Proves only public HTTPS URLs pass: private, loopback, link-local and reserved hosts
// are refused in every spelling the URL parser accepts, and public ones are allowed.
import { describe, expect, test } from "bun:test";
import { checkPublicUrl, isPublicIp } from "./public-url.ts";

describe("checkPublicUrl", () => {
  test.each([
    "https://images.example.com/cat.png",
    "https://8.8.8.8/a.png",
    "https://[2606:4700:4700::1111]/a.png",
    "https://cdn.example.org:8443/x?y=1",
  ])("allows %s", (url) => {
    expect(checkPublicUrl(url)).toBeNull();
  });

  test.each([
    ["http://images.example.com/cat.png", "not https"],
    ["ftp://example.com/a", "not https"],
    ["file:///etc/passwd", "not https"],
    ["not a url", "not a valid URL"],
    ["https://user:pw@example.com/a", "credentials"],
    ["https://127.0.0.1/a", "private"],
    ["https://127.1/a", "private"],
    ["https://2130706433/a", "private"],
    ["https://0x7f.0.0.1/a", "private"],
    ["https://10.1.2.3/a", "private"],
    ["https://172.20.0.1/a", "private"],
    ["https://192.168.1.1/a", "private"],
    ["https://169.254.169.254/latest/meta-data", "private"],
    ["https://100.64.0.1/a", "private"],
    ["https://0.0.0.0/a", "private"],
    ["https://[::1]/a", "private"],
    ["https://[::ffff:127.0.0.1]/a", "private"],
    ["https://[fd00::1]/a", "private"],
    ["https://[fe80::1]/a", "private"],
    ["https://localhost/a", "not a public domain"],
    ["https://api.localhost/a", "local name"],
    ["https://printer.local/a", "local name"],
    ["https://db.internal/a", "local name"],
    ["https://intranet/a", "not a public domain"],
  ])("refuses %s", (url, reason) => {
    expect(checkPublicUrl(url)).toContain(reason);
  });
});

describe("isPublicIp", () => {
  test("tells public from non-public addresses", () => {
    expect(isPublicIp("1.1.1.1")).toBe(true);
    expect(isPublicIp("2606:4700::1")).toBe(true);
    expect(isPublicIp("192.168.0.10")).toBe(false);
    expect(isPublicIp("::ffff:10.0.0.1")).toBe(false);
    expect(isPublicIp("not an ip")).toBe(false);
  });
});
