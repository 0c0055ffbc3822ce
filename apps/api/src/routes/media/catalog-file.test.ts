// Proves an operator's catalog file (CATALOG_FILE) changes what the api serves without
// code: a new tariff version and price, an added model, a removed one; and that a bad
// file stops the api at start with the problem named.
import { describe, expect, test } from "bun:test";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CatalogError, DEFAULT_CATALOG } from "@gw/tariffs";
import { startTestApi } from "../../testing.ts";

const dir = await mkdtemp(join(tmpdir(), "catalog-file-"));
const lumina = structuredClone(
  DEFAULT_CATALOG.models.find((model) => model.id === "lumina-image")!,
);
lumina.tariff_version = "2027-01-01";
lumina.operations!["text-to-image"]!.tariff.rates[0]!.usd = "0.05";
const speech = structuredClone(
  DEFAULT_CATALOG.models.find((model) => model.id === "sonora/speech")!,
);
speech.id = "sonora/speech-hd";
speech.display_name = "Sonora Speech HD";
const file = join(dir, "catalog.json");
await writeFile(file, JSON.stringify({ remove: ["patch-edit"], models: [lumina, speech] }));

describe("CATALOG_FILE", () => {
  test("the operator's tariffs, additions and removals are what the api serves", async () => {
    const api = await startTestApi({ CATALOG_FILE: file });
    const { secret } = await api.account();
    const quote = await api.call("POST", "/v1/media/quote", {
      key: secret,
      body: { model: "lumina-image", prompt: "p", input: { n: 2 } },
    });
    const { billing } = (await quote.json()) as { billing: { version: string; quota: number } };
    expect(billing).toMatchObject({ version: "2027-01-01", quota: 50_000 });
    const catalog = (await (await api.call("GET", "/v1/media/models")).json()) as {
      data: { id: string }[];
    };
    const ids = catalog.data.map((model) => model.id);
    expect(ids).toContain("sonora/speech-hd");
    expect(ids).not.toContain("patch-edit");
    const removed = await api.call("POST", "/v1/media/quote", {
      key: secret,
      body: {
        model: "patch-edit",
        operation: "layer-separation",
        image: "https://a.example/x.png",
      },
    });
    expect(removed.status).toBe(400);
  });

  test("a bad file stops the start with its problems named", async () => {
    const bad = join(dir, "bad.json");
    await writeFile(bad, JSON.stringify({ models: [{ ...lumina, kind: "hologram" }] }));
    const error = await startTestApi({ CATALOG_FILE: bad }).catch((caught) => caught);
    expect(error).toBeInstanceOf(CatalogError);
    expect(error.message).toContain(bad);
    expect(error.message).toContain("/models/0/kind");
  });
});
