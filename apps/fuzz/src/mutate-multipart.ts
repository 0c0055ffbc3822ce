import { jpegBomb, pngBomb, webpBomb } from "@gw/providers/testing";
import type { Random } from "@gw/random";
import type { Draft, DraftBody, Part } from "./draft.ts";
import type { Mutation } from "./mutation.ts";
import { solidPng } from "./png.ts";
import { areaOf } from "./world.ts";

/**
 * Mutations of multipart forms (image edits, video create): parts, files and bombs. Only
 * three operations take forms, so these weigh more than the others where they apply.
 */

type Form = Extract<DraftBody, { kind: "multipart" }>;

/** The draft's body as a form (a JSON draft's fields become text parts). */
function formOf(draft: Draft, random: Random): Form {
  if (draft.body?.kind === "multipart") return draft.body;
  const value = draft.body?.kind === "json" ? draft.body.value : {};
  const parts: Part[] = Object.entries((value ?? {}) as Record<string, unknown>).map(
    ([name, field]) => ({ name, data: typeof field === "string" ? field : JSON.stringify(field) }),
  );
  const form: Form = { kind: "multipart", parts, boundary: `fuzz${random.string(16)}` };
  draft.body = form;
  return form;
}

const takesForm = (draft: Draft) => Boolean(draft.op.bodies.multipart);
const isEdit = (draft: Draft) => takesForm(draft) && areaOf(draft.op) === "image";

function finish(draft: Draft, what: string, mustRefuse: string | null) {
  draft.contentType = undefined;
  draft.mutation = `multipart:${what}`;
  draft.mustRefuse = mustRefuse;
}

const manyParts: Mutation = {
  name: "multipart:many-parts",
  weight: 20,
  applies: takesForm,
  apply(draft, _world, random) {
    const form = formOf(draft, random);
    const count = random.pick([9, 26, 200, 5_000]);
    const name = random.pick(["prompt", "image", "x", "input"]);
    for (let i = 0; i < count; i++) form.parts.push({ name, data: "p" });
    finish(draft, `many-parts:${count} extra '${name}' parts`, "too many or repeated parts");
  },
};

const badParts: Mutation = {
  name: "multipart:bad-part",
  weight: 30,
  applies: takesForm,
  apply(draft, _world, random) {
    const form = formOf(draft, random);
    const kind = random.pick([
      "no-disposition",
      "no-name",
      "nul-name",
      "unknown-field",
      "file-as-text-field",
      "input-not-json",
      "input-deep",
      "input-array",
      "nul-value",
      "invalid-utf8-value",
      "oversized-field",
      "unterminated",
      "wrong-boundary",
      "empty-form",
      "header-garbage",
    ] as const);
    let mustRefuse: string | null = `a bad part (${kind})`;
    switch (kind) {
      // A part without a name is no field at all: a parser may drop it, as browsers' do.
      case "no-disposition":
        form.parts.push({ name: "x", data: "v", rawHeaders: "Content-Type: text/plain" });
        mustRefuse = null;
        break;
      case "no-name":
        form.parts.push({ name: "", data: "v", rawHeaders: "Content-Disposition: form-data" });
        mustRefuse = null;
        break;
      case "nul-name":
        form.parts.push({ name: "mo\u0000del", data: "v" });
        break;
      case "unknown-field":
        form.parts.push({
          name: random.pick(["size_x", "input_reference", "__proto__", "image[0]"]),
          data: "v",
        });
        break;
      case "file-as-text-field":
        form.parts = form.parts.filter((part) => part.name !== "model");
        form.parts.push({
          name: "model",
          filename: "model.txt",
          contentType: "text/plain",
          data: "x",
        });
        break;
      case "input-not-json":
        form.parts.push({
          name: "input",
          data: random.pick(["{", "[1]", "null", '"s"', '{"a":\u0000}']),
        });
        break;
      case "input-deep":
        form.parts.push({ name: "input", data: `${'{"a":'.repeat(100)}1${"}".repeat(100)}` });
        break;
      case "input-array":
        form.parts.push({ name: "input", data: "[]" });
        break;
      case "nul-value":
        form.parts.push({ name: "prompt", data: "a\u0000b" });
        break;
      case "invalid-utf8-value":
        form.parts = form.parts.filter((part) => part.name !== "prompt");
        form.parts.push({ name: "prompt", data: new Uint8Array([0x61, 0xff, 0xc0, 0xaf, 0x62]) });
        mustRefuse = null;
        break;
      case "oversized-field":
        form.parts.push({ name: "prompt", data: "p".repeat(random.pick([70_000, 300_000])) });
        break;
      case "unterminated":
        form.unterminated = true;
        break;
      case "wrong-boundary":
        draft.body = { ...form, boundary: form.boundary };
        draft.contentType = `multipart/form-data; boundary=other${form.boundary}`;
        draft.mutation = "multipart:bad-part:wrong-boundary";
        draft.mustRefuse = "the boundary does not match";
        return;
      case "empty-form":
        form.parts = [];
        break;
      case "header-garbage":
        form.parts.push({ name: "x", data: "v", rawHeaders: "\u00ff\u00fe: \r\n\r\n:" });
        mustRefuse = null;
        break;
    }
    finish(draft, `bad-part:${kind}`, mustRefuse);
  },
};

function withoutImages(form: Form) {
  form.parts = form.parts.filter((part) => part.name !== "image" && part.name !== "mask");
}

const BOMB_SIZES: [number, number][] = [
  [100_000, 100_000],
  [16_385, 1],
  [1, 16_385],
  [8193, 8193],
  [65_535, 65_535],
];

const bombs: Mutation = {
  name: "multipart:bomb",
  weight: 30,
  applies: isEdit,
  apply(draft, _world, random) {
    const form = formOf(draft, random);
    withoutImages(form);
    const [width, height] = random.pick(BOMB_SIZES);
    const format = random.pick(["png", "jpeg", "webp"] as const);
    const make = { png: pngBomb, jpeg: jpegBomb, webp: webpBomb }[format];
    // JPEG sides are 16-bit and WebP's 24-bit: the declared size is what the header can hold.
    const w = format === "jpeg" ? Math.min(width, 65_535) : width;
    const h = format === "jpeg" ? Math.min(height, 65_535) : height;
    const field = random.pick(["image", "image[]", "mask"]);
    if (field === "mask")
      form.parts.push({
        name: "image",
        filename: "ok.png",
        contentType: "image/png",
        data: solidPng(16, 16, [1, 2, 3]),
      });
    form.parts.push({
      name: field,
      filename: `bomb.${format}`,
      contentType: `image/${format}`,
      data: make(w, h),
    });
    finish(draft, `bomb:${format} ${w}x${h} as ${field}`, "the image declares too many pixels");
  },
};

const BAD_FILES: [string, (random: Random) => Uint8Array, boolean][] = [
  ["empty file", () => new Uint8Array(), true],
  ["random bytes", (random) => random.bytes(512), true],
  ["truncated png", () => solidPng(32, 32, [9, 9, 9]).slice(0, 40), false],
  [
    "gif",
    () => new TextEncoder().encode("GIF89a\u0001\u0000\u0001\u0000\u0000\u0000\u0000;"),
    true,
  ],
  ["svg", () => new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>'), true],
  ["png header only", () => solidPng(8, 8, [0, 0, 0]).slice(0, 8), true],
  ["1x1 png", () => solidPng(1, 1, [255, 0, 0]), false],
  ["21 MB file", () => new Uint8Array(21 * 1024 * 1024), true],
];

const badFiles: Mutation = {
  name: "multipart:bad-file",
  weight: 25,
  applies: isEdit,
  apply(draft, _world, random) {
    const form = formOf(draft, random);
    withoutImages(form);
    const [name, make, refuse] = random.pick(BAD_FILES);
    const count = name !== "21 MB file" && random.chance(0.15) ? random.pick([16, 17]) : 1;
    for (let i = 0; i < count; i++)
      form.parts.push({
        name: random.pick(["image", "image[]"]),
        filename: random.pick(["x.png", "", "../../etc/passwd", 'a"b.png']),
        contentType: random.pick(["image/png", "application/octet-stream", "text/html"]),
        data: make(random),
      });
    finish(
      draft,
      `bad-file:${count}x ${name}`,
      refuse || count > 16 ? `a bad file (${name})` : null,
    );
  },
};

export const MULTIPART_MUTATIONS: Mutation[] = [manyParts, badParts, bombs, badFiles];
