// Proves the validation rules of spec 2.1 and 4.2: defaults without overwriting false or
// 0, unknown and foreign fields refused with the field named, the operation choice, and
// the per-operation rules (one segment-map source, 16 references, no duplicates, masks).
import { describe, expect, test } from "bun:test";
import { checkPublicUrl } from "@gw/auth";
import { loadCatalog } from "../catalog/load.ts";
import { type MediaCall, normalizeCall } from "./normalize.ts";

const catalog = await loadCatalog();
const url = (name: string) => `https://img.example.com/${name}.png`;

function accept(call: MediaCall, access: string[][] = []) {
  const result = normalizeCall(catalog, call, { checkUrl: checkPublicUrl, access });
  if (!result.ok) throw new Error(`refused: ${result.message}`);
  return result.call;
}
function refuse(call: MediaCall, access: string[][] = []) {
  const result = normalizeCall(catalog, call, { checkUrl: checkPublicUrl, access });
  if (result.ok) throw new Error("accepted");
  return result;
}

describe("input defaults", () => {
  test("omitted fields take the model's defaults", () => {
    const call = accept({ model: "motion-video", prompt: "waves" });
    expect(call.input).toEqual({
      resolution: "720p",
      duration: 5,
      sound: false,
      aspect_ratio: "16:9",
    });
  });

  test("false and 0 sent explicitly are kept", () => {
    const music = accept({
      model: "sonora/music",
      prompt: "la la",
      input: { instrumental: false, customMode: false },
    });
    expect(music.input.instrumental).toBe(false);
    const video = accept({ model: "motion-video", prompt: "x", input: { sound: false, seed: 0 } });
    expect(video.input.seed).toBe(0);
    const extend = accept({
      model: "sonora/music",
      operation: "extend",
      input: { audioId: "task_1:0", continueAt: 0 },
    });
    expect(extend.input.continueAt).toBe(0);
  });
});

describe("refusals name the field", () => {
  test.each([
    [
      { model: "lumina-image", prompt: "x", input: { colour: "red" } },
      "Unknown field input.colour",
    ],
    [{ model: "lumina-image", prompt: "x", input: { quality: "high" } }, "input.quality"],
    [
      { model: "lumina-image", prompt: "x", input: { resolution: "8K" } },
      'input.resolution must be one of "1K", "2K", "4K" (got "8K")',
    ],
    [
      { model: "lumina-image", prompt: "x", input: { n: 0 } },
      "input.n must be an integer from 1 to 4",
    ],
    [{ model: "lumina-image", prompt: "x", input: { n: "2" } }, "input.n must be an integer"],
    [
      { model: "motion-video", prompt: "x", input: { sound: "yes" } },
      "input.sound must be true or false",
    ],
    [
      { model: "motion-video", prompt: "x", input: { resolution: "1080p", duration: 10 } },
      'input.duration must be one of 5, 8 when input.resolution is "1080p"',
    ],
    [
      { model: "sonora/music", prompt: "x", input: { customMode: true, style: "jazz" } },
      "input.title is required when input.customMode is true",
    ],
    [{ model: "crisp-upscale", operation: "upscale" }, "input.image_url is required"],
    [{ model: "lumina-image", input: {} }, "prompt is required"],
    [{ model: "lumina-image", prompt: "   " }, "prompt is required"],
  ] as [MediaCall, string][])("%o", (call, message) => {
    const refused = refuse(call);
    expect(refused.code).toBe("invalid_request");
    expect(refused.message).toContain(message);
  });

  test("a field of another operation of the same model says where it belongs", () => {
    const refused = refuse({
      model: "lumina-image",
      prompt: "x",
      operation: "text-to-image",
      input: { image_urls: [url("a")] },
    });
    expect(refused.message).toContain('belongs to operation "image-to-image"');
  });

  test("top-level OpenAI fields the model lacks are refused, not dropped", () => {
    expect(refuse({ model: "lumina-image", prompt: "x", size: "1024x1024" }).message).toContain(
      "Field 'size' is not a parameter",
    );
    expect(
      refuse({ model: "gpt-image-1", prompt: "x", size: "1024x1024", input: { size: "1536x1024" } })
        .message,
    ).toContain("disagree");
  });
});

describe("models and operations", () => {
  test("unknown models, and IDs with -edit appended, are refused", () => {
    expect(refuse({ model: "nope", prompt: "x" }).code).toBe("model_not_found");
    const edit = refuse({ model: "lumina-image-edit", prompt: "x", image: url("a") });
    expect(edit.code).toBe("model_not_found");
    expect(edit.message).toContain('no "-edit" suffix');
  });

  test("an explicit operation the model lacks is refused, not turned into another", () => {
    const refused = refuse({ model: "lumina-image", operation: "upscale", prompt: "x" });
    expect(refused.code).toBe("unsupported_operation");
    expect(refused.message).toContain('"text-to-image", "image-to-image"');
  });

  test("without operation: an image selects the edit mode, no image the generate mode", () => {
    expect(accept({ model: "lumina-image", prompt: "x" }).operation.name).toBe("text-to-image");
    expect(accept({ model: "lumina-image", prompt: "x", image: url("a") }).operation.name).toBe(
      "image-to-image",
    );
    expect(accept({ model: "gpt-image-1", prompt: "x", image: [url("a")] }).operation.name).toBe(
      "image-edit",
    );
    expect(accept({ model: "gpt-image-1", prompt: "x" }).operation.name).toBe("generate");
    // The model's own image field counts as a source image too.
    expect(
      accept({ model: "lumina-image", prompt: "x", input: { image_urls: [url("a")] } }).operation
        .name,
    ).toBe("image-to-image");
  });

  test("an explicit operation wins over the automatic choice", () => {
    const call = accept({
      model: "motion-video",
      operation: "image-to-video",
      prompt: "x",
      image: url("a"),
    });
    expect(call.operation.name).toBe("image-to-video");
    expect(call.input.image_url).toBe(url("a"));
  });

  test("upscaling, region editing and layer separation are never chosen by an attachment", () => {
    for (const model of ["crisp-upscale", "patch-edit", "atlas-segment"]) {
      const refused = refuse({ model, prompt: "x", image: url("a") });
      expect(refused.code).toBe("unsupported_operation");
    }
    expect(refuse({ model: "crisp-upscale" }).message).toContain("needs an explicit operation");
    expect(refuse({ model: "motion-video", prompt: "x", image: url("a") }).code).toBe(
      "unsupported_operation",
    );
  });

  test("a family ID runs its default variant; a variant ID runs itself", () => {
    expect(accept({ model: "lumina-image", prompt: "x" }).model.id).toBe("lumina-image-flare");
    expect(accept({ model: "lumina-image-sunburst", prompt: "x" }).model.id).toBe(
      "lumina-image-sunburst",
    );
  });

  test("access lists: the account's and the key's must both admit the model", () => {
    expect(refuse({ model: "gpt-image-1", prompt: "x" }, [["lumina-image"]]).code).toBe(
      "model_not_allowed",
    );
    expect(refuse({ model: "gpt-image-1", prompt: "x" }, [[], ["lumina-image"]]).code).toBe(
      "model_not_allowed",
    );
    // A family ID in a list admits its variants.
    expect(
      accept({ model: "lumina-image-sunburst", prompt: "x" }, [["lumina-image"]]).model.id,
    ).toBe("lumina-image-sunburst");
  });
});

describe("edit rules", () => {
  test("the GPT-style family takes up to 16 references across image and input_urls", () => {
    const images = Array.from({ length: 16 }, (_, i) => url(`r${i}`));
    const ok = accept({
      model: "gpt-image-1",
      prompt: "x",
      image: images.slice(0, 4),
      input: { input_urls: images.slice(4) },
    });
    expect(ok.input.image_urls).toHaveLength(4);
    const refused = refuse({
      model: "gpt-image-1",
      prompt: "x",
      image: images.slice(0, 4),
      input: { input_urls: [...images.slice(4), url("extra")] },
    });
    expect(refused.message).toContain(
      "At most 16 images in image and input.input_urls together (got 17)",
    );
  });

  test("the same image in image and input_urls is refused", () => {
    const refused = refuse({
      model: "gpt-image-1",
      prompt: "x",
      image: url("a"),
      input: { input_urls: [url("a")] },
    });
    expect(refused.message).toContain("must not be sent in both image and input.input_urls");
  });

  test("a mask only where the mode's schema has one", () => {
    expect(
      accept({ model: "gpt-image-1", prompt: "x", image: url("a"), mask: url("m") }).input.mask_url,
    ).toBe(url("m"));
    const refused = refuse({ model: "lumina-image", prompt: "x", image: url("a"), mask: url("m") });
    expect(refused.message).toContain("has no mask field");
    expect(
      refuse({ model: "lumina-image", prompt: "x", image: url("a"), input: { mask_url: url("m") } })
        .message,
    ).toContain("Unknown field input.mask_url");
  });

  test("segment-map takes exactly one of input.image_url and input.task_id", () => {
    const base = { model: "atlas-segment", operation: "segment-map" };
    expect(accept({ ...base, input: { image_url: url("a") } }).input.max_masks).toBe(8);
    expect(accept({ ...base, input: { task_id: "task_abc" } }).input.task_id).toBe("task_abc");
    expect(refuse({ ...base, input: {} }).message).toContain(
      "Pass exactly one of input.image_url, input.task_id",
    );
    expect(
      refuse({ ...base, input: { image_url: url("a"), task_id: "task_abc" } }).message,
    ).toContain("not several");
  });

  test("file URLs must be public HTTPS", () => {
    for (const bad of [
      "http://img.example.com/a.png",
      "https://127.0.0.1/a.png",
      "https://169.254.169.254/x",
      "https://localhost/a.png",
    ]) {
      expect(refuse({ model: "lumina-image", prompt: "x", image: bad }).message).toContain(
        "image must be a public HTTPS URL",
      );
    }
    expect(
      refuse({
        model: "crisp-upscale",
        operation: "upscale",
        input: { image_url: "https://10.0.0.1/a.png" },
      }).message,
    ).toContain("input.image_url must be a public HTTPS URL");
  });
});
