// Proves X-Forwarded-For is believed only as far as trusted proxies vouch for it.
import { describe, expect, test } from "bun:test";
import { createClientIpResolver, parseTrustedProxies } from "./client-ip.ts";

function xff(...values: string[]): Headers {
  const headers = new Headers();
  for (const value of values) headers.append("X-Forwarded-For", value);
  return headers;
}

describe("untrusted peers", () => {
  const resolve = createClientIpResolver(["10.0.0.0/8"]);

  test("a spoofed X-Forwarded-For from a direct client is ignored", () => {
    expect(resolve("203.0.113.9", xff("1.1.1.1"))).toBe("203.0.113.9");
    expect(resolve("203.0.113.9", xff("10.0.0.1"))).toBe("203.0.113.9");
  });

  test("with no trusted proxies configured, headers never matter", () => {
    const none = createClientIpResolver([]);
    expect(none("127.0.0.1", xff("1.1.1.1"))).toBe("127.0.0.1");
  });

  test("the peer address is normalized", () => {
    expect(resolve("::ffff:203.0.113.9", new Headers())).toBe("203.0.113.9");
    expect(resolve("2001:DB8:0:0::1", new Headers())).toBe("2001:db8::1");
    expect(resolve("[2001:db8::1]", new Headers())).toBe("2001:db8::1");
  });

  test("a missing or unparseable peer yields null", () => {
    expect(resolve(null, xff("1.1.1.1"))).toBeNull();
    expect(resolve("unix-socket", xff("1.1.1.1"))).toBeNull();
  });
});

describe("trusted peers", () => {
  const resolve = createClientIpResolver(["10.0.0.0/8"]);

  test("the rightmost untrusted hop is the client, not the leftmost claim", () => {
    // the client forged "6.6.6.6"; our proxy appended the address it really saw
    expect(resolve("10.0.0.2", xff("6.6.6.6, 198.51.100.7"))).toBe("198.51.100.7");
  });

  test("a chain of trusted proxies is skipped", () => {
    const headers = xff("6.6.6.6, 198.51.100.7, 10.0.0.3, 10.0.0.4");
    expect(resolve("10.0.0.5", headers)).toBe("198.51.100.7");
  });

  test("several X-Forwarded-For headers are read as one list", () => {
    expect(resolve("10.0.0.5", xff("6.6.6.6, 198.51.100.7", "10.0.0.4"))).toBe("198.51.100.7");
  });

  test("IPv4 peers on dual-stack sockets are recognised as trusted", () => {
    expect(resolve("::ffff:10.0.0.2", xff("198.51.100.7"))).toBe("198.51.100.7");
  });

  test("hops are normalized", () => {
    expect(resolve("10.0.0.2", xff("::ffff:198.51.100.7"))).toBe("198.51.100.7");
    expect(resolve("10.0.0.2", xff("2001:DB8::0:1"))).toBe("2001:db8::1");
  });

  test("hops with ports or brackets are understood", () => {
    expect(resolve("10.0.0.2", xff("198.51.100.7:4711"))).toBe("198.51.100.7");
    expect(resolve("10.0.0.2", xff("[2001:db8::1]:443"))).toBe("2001:db8::1");
    expect(resolve("10.0.0.2", xff("[2001:db8::1]"))).toBe("2001:db8::1");
  });

  test("when every hop is trusted the leftmost is the client", () => {
    expect(resolve("10.0.0.5", xff("10.0.0.3, 10.0.0.4"))).toBe("10.0.0.3");
  });

  test("an absent or empty header leaves the peer as the client", () => {
    expect(resolve("10.0.0.5", new Headers())).toBe("10.0.0.5");
    expect(resolve("10.0.0.5", xff(""))).toBe("10.0.0.5");
  });

  test("garbage stops the walk at the last hop a trusted proxy vouched for", () => {
    expect(resolve("10.0.0.5", xff("garbage"))).toBe("10.0.0.5");
    expect(resolve("10.0.0.5", xff("unknown, 10.0.0.4"))).toBe("10.0.0.4");
    // "6.6.6.6" sits behind the garbage, so nothing vouches for it
    expect(resolve("10.0.0.5", xff("6.6.6.6, unknown"))).toBe("10.0.0.5");
    expect(resolve("10.0.0.5", xff("6.6.6.6, 1.2.3.4.5, 10.0.0.4"))).toBe("10.0.0.4");
    expect(resolve("10.0.0.5", xff("6.6.6.6,"))).toBe("10.0.0.5");
  });
});

describe("keywords", () => {
  test("loopback trusts 127.0.0.0/8 and ::1 only", () => {
    const resolve = createClientIpResolver(["loopback"]);
    expect(resolve("127.0.0.1", xff("198.51.100.7"))).toBe("198.51.100.7");
    expect(resolve("127.255.255.254", xff("198.51.100.7"))).toBe("198.51.100.7");
    expect(resolve("::1", xff("198.51.100.7"))).toBe("198.51.100.7");
    expect(resolve("::ffff:127.0.0.1", xff("198.51.100.7"))).toBe("198.51.100.7");
    expect(resolve("10.0.0.1", xff("198.51.100.7"))).toBe("10.0.0.1");
    expect(resolve("::2", xff("198.51.100.7"))).toBe("::2");
  });

  test("private trusts RFC 1918 and ULA ranges", () => {
    const resolve = createClientIpResolver(["private"]);
    for (const peer of ["10.1.1.1", "172.16.0.1", "172.31.255.255", "192.168.0.1", "fd00::1"]) {
      expect(resolve(peer, xff("198.51.100.7"))).toBe("198.51.100.7");
    }
    for (const peer of ["172.32.0.1", "192.169.0.1", "fe80::1", "127.0.0.1"]) {
      expect(resolve(peer, xff("198.51.100.7"))).toBe(peer);
    }
  });

  test("keywords mix with ranges", () => {
    const resolve = createClientIpResolver(["loopback", "203.0.113.0/24"]);
    expect(resolve("127.0.0.1", xff("198.51.100.7, 203.0.113.50"))).toBe("198.51.100.7");
  });

  test("an invalid entry is a configuration bug and throws at construction", () => {
    expect(() => createClientIpResolver(["*"])).toThrow(TypeError);
    expect(() => createClientIpResolver(["10.0.0.0/33"])).toThrow(TypeError);
    expect(() => createClientIpResolver(["constructor"])).toThrow(TypeError);
  });
});

describe("parseTrustedProxies", () => {
  test.each([
    [undefined, []],
    ["", []],
    [" , ", []],
    ["loopback", ["loopback"]],
    [" Loopback , private,10.1.2.3/8, ::1/128 ,", ["loopback", "private", "10.0.0.0/8", "::1"]],
    ["10.0.0.0/8,10.0.0.0/8", ["10.0.0.0/8"]],
    ["2001:DB8::/32", ["2001:db8::/32"]],
  ])("%p → %p", (value, expected) => {
    expect(parseTrustedProxies(value)).toEqual({ ok: true, value: expected });
  });

  test.each([
    ["*", "*"],
    ["loopback, all", "all"],
    ["10.0.0.0/33", "10.0.0.0/33"],
    ["10.0.0.0/8, nope, 1.2.3.4/99", "nope"],
    ["constructor", "constructor"],
  ])("%p is invalid at %p", (value, invalid) => {
    expect(parseTrustedProxies(value)).toEqual({ ok: false, invalid });
  });

  test("its output builds a resolver", () => {
    const parsed = parseTrustedProxies("loopback, 10.0.0.0/8");
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const resolve = createClientIpResolver(parsed.value);
    expect(resolve("10.0.0.2", xff("198.51.100.7"))).toBe("198.51.100.7");
  });
});
