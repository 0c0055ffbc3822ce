// Proves a NUL character (\u0000) anywhere in stored text is refused at the door with a
// 400 naming the field, in JSON and in multipart, in prompts, inputs and admin fields,
// instead of failing inside Postgres with a 500; and that nothing is created or changed.
import { describe, expect, test } from "bun:test";
import { startTestApi } from "../../testing.ts";

// biome-ignore lint/suspicious/noExplicitAny: error bodies are checked field by field
type Body = any;

const api = await startTestApi();
const { secret, userId, keyId } = await api.account({ balanceUsd: 5 });
const NUL = "\u0000";

async function state() {
  const [row] = await api.store.sql<Record<string, string>[]>`
    select (select count(*) from users) as users, (select count(*) from api_keys) as keys,
           (select count(*) from tasks) as tasks, (select count(*) from holds) as holds,
           (select count(*) from ledger_entries) as entries,
           (select string_agg(name || ':' || discount_ppm || ':' || array_to_string(allowed_models, ','), ';' order by id) from users) as profiles,
           (select string_agg(name, ';' order by id) from api_keys) as key_names`;
  return row;
}

async function expectRefused(response: Response, field: string) {
  const body = (await response.json()) as Body;
  expect({ status: response.status, code: body.error?.code }).toEqual({
    status: 400,
    code: "invalid_request",
  });
  expect(body.error.message).toContain(field);
  expect(body.error.message).toContain("NUL");
}

describe("a NUL character in stored text", () => {
  test.each([
    [
      "image prompt",
      "/v1/images/generations",
      { model: "lumina-image", prompt: `a${NUL}b` },
      "prompt",
    ],
    [
      "image input value",
      "/v1/images/generations",
      { model: "gpt-image-1", prompt: "p", input: { output_format: `png${NUL}` } },
      "input.output_format",
    ],
    [
      "image input key",
      "/v1/images/generations",
      { model: "lumina-image", prompt: "p", input: { [`re${NUL}s`]: "1K" } },
      "key",
    ],
    ["quote prompt", "/v1/media/quote", { model: "lumina-image", prompt: `a${NUL}` }, "prompt"],
  ])("%s is a 400 with a paid key", async (_, path, body, field) => {
    const before = await state();
    await expectRefused(await api.call("POST", path, { key: secret, body }), field);
    expect(await state()).toEqual(before);
  });

  test.each([
    ["user name", "POST", "/admin/users", { name: `ann${NUL}` }, "name"],
    [
      "allowed_models",
      "POST",
      "/admin/users",
      { name: "ann", allowed_models: [`gpt${NUL}`] },
      "allowed_models[0]",
    ],
    ["user rename", "PATCH", `/admin/users/${userId}`, { name: `bob${NUL}` }, "name"],
    ["key name", "POST", "/admin/keys", { user_id: Number(userId), name: `k${NUL}` }, "name"],
    ["key rename", "PATCH", `/admin/keys/${keyId}`, { name: `k${NUL}` }, "name"],
    [
      "key model_limits",
      "PATCH",
      `/admin/keys/${keyId}`,
      { model_limits: [`m${NUL}`] },
      "model_limits[0]",
    ],
    [
      "credit note",
      "POST",
      `/admin/users/${userId}/credits`,
      { amount_usd: 1, note: `n${NUL}` },
      "note",
    ],
  ])("%s is a 400 through the admin API", async (_, method, path, body, field) => {
    const before = await state();
    await expectRefused(await api.admin(method, path, body), field);
    expect(await state()).toEqual(before);
  });

  test("in a multipart text field or inside its JSON input, an edit is a 400", async () => {
    const form = (fields: Record<string, string>) => {
      const data = new FormData();
      for (const [name, value] of Object.entries(fields)) data.append(name, value);
      return data;
    };
    const before = await state();
    for (const [fields, field] of [
      [{ model: "lumina-image", prompt: `a${NUL}b` }, "prompt"],
      [
        { model: "lumina-image", prompt: "p", input: JSON.stringify({ resolution: `1K${NUL}` }) },
        "input",
      ],
    ] as const) {
      const response = await fetch(`${api.url}/v1/images/edits`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}` },
        body: form(fields),
      });
      await expectRefused(response, field);
    }
    expect(await state()).toEqual(before);
  });
});
