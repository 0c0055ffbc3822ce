// Proves the built-in catalog loads and that an operator file can add, replace and remove
// models, while a bad file is refused at start with every problem named by its path.
import { describe, expect, test } from "bun:test";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_CATALOG } from "./default-catalog.ts";
import { buildCatalog, CatalogError, loadCatalog } from "./load.ts";
import type { ModelSpec } from "./spec.ts";

const dir = await mkdtemp(join(tmpdir(), "catalog-"));
async function fileWith(content: unknown): Promise<string> {
  const path = join(dir, `${crypto.randomUUID()}.json`);
  await writeFile(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

const simpleModel = (overrides: Partial<ModelSpec> = {}): ModelSpec => ({
  id: "acme-image",
  display_name: "Acme Image",
  kind: "image",
  owned_by: "acme",
  created: 1_700_000_000,
  tariff_version: "acme-1",
  operations: {
    "text-to-image": {
      default: true,
      input: { size: { type: "string", enum: ["small", "large"], default: "small" } },
      tariff: {
        unit: "image",
        quantity: { fixed: 1 },
        rates: [
          { when: { size: "small" }, usd: "0.01" },
          { when: { size: "large" }, usd: "0.02" },
        ],
      },
    },
  },
  ...overrides,
});

describe("built-in catalog", () => {
  test("loads, with every family and variant callable", async () => {
    const catalog = await loadCatalog();
    const ids = catalog.models.map((model) => model.id);
    for (const id of [
      "lumina-image",
      "lumina-image-flare",
      "lumina-image-sunburst",
      "gpt-image-1",
      "atlas-segment",
      "crisp-upscale",
      "patch-edit",
      "sonora/speech",
      "sonora/music",
      "motion-video",
      "lumen-chat",
    ])
      expect(ids).toContain(id);
    expect(catalog.resolve(catalog.get("lumina-image")!).id).toBe("lumina-image-flare");
    expect(catalog.get("lumina-image-sunburst")!.family).toEqual({
      id: "lumina-image",
      label: "Sunburst",
    });
    expect([...catalog.get("sonora/music")!.operations.keys()]).toEqual([
      "generate",
      "extend",
      "separate",
      "wav",
    ]);
  });
});

describe("operator file", () => {
  test("adds a model and replaces a built-in one by ID", async () => {
    const replaced = { ...DEFAULT_CATALOG.models.find((m) => m.id === "lumen-chat")! };
    replaced.display_name = "Lumen Chat (EU)";
    const catalog = await loadCatalog(await fileWith({ models: [simpleModel(), replaced] }));
    expect(catalog.get("acme-image")?.spec.tariff_version).toBe("acme-1");
    expect(catalog.get("lumen-chat")?.spec.display_name).toBe("Lumen Chat (EU)");
    expect(catalog.get("gpt-image-1")).toBeDefined();
  });

  test("removes built-in models, or starts empty with replace_defaults", async () => {
    const removed = await loadCatalog(await fileWith({ remove: ["gpt-image-1"] }));
    expect(removed.get("gpt-image-1")).toBeUndefined();
    const only = await loadCatalog(
      await fileWith({ replace_defaults: true, models: [simpleModel()] }),
    );
    expect(only.models.map((model) => model.id)).toEqual(["acme-image"]);
  });

  test.each([
    ["not JSON", "{models: [", "not valid JSON"],
    ["an unknown top-level field", { modelz: [] }, "/modelz"],
  ])("refuses %s", async (_name, content, problem) => {
    const path = await fileWith(content);
    const error = await loadCatalog(path).catch((caught) => caught);
    expect(error).toBeInstanceOf(CatalogError);
    expect(error.message).toContain(problem);
  });

  test("a missing file is a clear error", async () => {
    const error = await loadCatalog(join(dir, "nope.json")).catch((caught) => caught);
    expect(error).toBeInstanceOf(CatalogError);
    expect(error.message).toContain("does not exist");
  });

  test("every semantic problem is reported at once, with its path", () => {
    const model = simpleModel();
    const operation = model.operations!["text-to-image"]!;
    operation.input.size!.default = "huge";
    operation.tariff.rates = [
      { when: { size: "small" }, usd: "0.0000001" },
      { when: { colour: "red" }, usd: "0.01" },
    ];
    operation.image_field = "size";
    operation.rules = [{ exactly_one_of: ["size", "ghost"] }];
    const result = buildCatalog({
      models: [model, simpleModel({ id: "acme-2" }), simpleModel({ id: "acme-2" })],
    });
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems;
    const at = "models[";
    expect(problems.some((p) => p.includes(at) && p.includes('default "huge"'))).toBe(true);
    expect(problems.some((p) => p.includes("rates[0].usd") && p.includes("finer"))).toBe(true);
    expect(problems.some((p) => p.includes('"colour" is not an input field'))).toBe(true);
    expect(problems.some((p) => p.includes("need a final rate without"))).toBe(true);
    expect(problems.some((p) => p.includes("image_field"))).toBe(true);
    expect(problems.some((p) => p.includes('"ghost" is not an input field'))).toBe(true);
    expect(problems.some((p) => p.includes('"acme-2" appears twice'))).toBe(true);
  });

  test("a tariff must price every input the schema accepts", () => {
    const model = simpleModel();
    model.operations!["text-to-image"]!.tariff.rates.pop();
    const result = buildCatalog({ models: [model] });
    expect(result.ok ? [] : result.problems).toEqual([
      'models[11] (acme-image).operations.text-to-image.tariff.rates: no rate for {"size":"large"}',
    ]);
  });

  test("a media model without operations and a text model without prices or tokenizer are refused", () => {
    const result = buildCatalog({
      models: [
        simpleModel({ operations: {} }),
        { ...simpleModel({ id: "acme-text", kind: "text" }), operations: undefined },
      ],
    });
    const problems = result.ok ? [] : result.problems;
    expect(problems.map((problem) => problem.replace(/^models\[\d+\] /, ""))).toEqual([
      "(acme-image): an image model needs operations",
      "(acme-text): a text model needs text_prices",
      "(acme-text): a text model needs a tokenizer (for local token counts)",
    ]);
  });
});
