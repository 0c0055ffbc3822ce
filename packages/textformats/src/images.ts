import type { ImageSource } from "./neutral.ts";

const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+)?(?:;[\w=.+-]+)*;base64,/i;

/** An image URL as chat and responses send it: https, or a base64 data: URL read inline. */
export function imageFromUrl(url: string): ImageSource {
  const match = DATA_URL.exec(url);
  if (!match) return { kind: "url", url };
  return {
    kind: "base64",
    mediaType: match[1] ?? "application/octet-stream",
    data: url.slice(match[0].length),
  };
}

/** The URL form chat and responses take: base64 images become data: URLs. */
export const imageToUrl = (source: ImageSource): string =>
  source.kind === "url" ? source.url : `data:${source.mediaType};base64,${source.data}`;
