import { createFixture } from "./fixture.ts";
import { startFuzzStack } from "./stack.ts";

const s = await startFuzzStack({ workers: 1 });
try {
  const f = await createFixture(s.url, s.store.sql);
  const bodies = [
    '{"model":"lumen-chat","max_tokens":32,"messages":[{"role":"user","content":"hi"}],"stream":true,"__proto__":null}',
    '{"model":"lumen-chat","max_tokens":32,"messages":[{"role":"user","content":"hi"}],"stream":false,"__proto__":null}',
    '{"model":"lumen-chat","max_tokens":32,"messages":[{"role":"user","content":"hi"}],"__proto__":{"x":1}}',
  ];
  for (const path of ["/v1/messages", "/v1/chat/completions", "/v1/responses"])
    for (const b of bodies) {
      const body =
        path === "/v1/responses"
          ? b.replace('"messages":[{"role":"user","content":"hi"}]', '"input":"hi"')
          : b;
      const r = await fetch(`${s.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${f.a.key}`, "content-type": "application/json" },
        body,
      });
      console.log(path, r.status, (await r.text()).slice(0, 150).replace(/\n/g, " "));
    }
  await Bun.sleep(500);
  console.log(
    s.api
      .output()
      .split("\n")
      .filter((l) => l.includes("internal") || l.includes("error"))
      .slice(-5)
      .join("\n")
      .slice(0, 3000),
  );
} finally {
  await s.stop();
}
