import { dirname, join } from "node:path";
import { swagger } from "@elysiajs/swagger";
import { Elysia } from "elysia";

// The package does not export its browser bundle, so it is found beside its entry point.
const SCALAR_BUNDLE = join(
  dirname(Bun.resolveSync("@scalar/api-reference", import.meta.dir)),
  "browser",
  "standalone.js",
);

/**
 * The OpenAPI document at /swagger/json, generated from the same TypeBox schemas that
 * validate requests, and its page at /swagger. The page's script is served from this
 * app, not a CDN: operators' networks often cannot reach one.
 */
export function docsPlugin() {
  return new Elysia({ name: "gw/docs" })
    .get(
      "/swagger/assets/scalar.js",
      () =>
        new Response(Bun.file(SCALAR_BUNDLE), {
          headers: {
            "content-type": "text/javascript; charset=utf-8",
            "cache-control": "public, max-age=86400",
          },
        }),
      { detail: { hide: true } },
    )
    .use(
      swagger({
        path: "/swagger",
        provider: "scalar",
        scalarCDN: "/swagger/assets/scalar.js",
        scalarConfig: { withDefaultFonts: false },
        exclude: ["/swagger/assets/scalar.js"],
        documentation: {
          info: {
            title: "Media gateway API",
            version: "1.0.0",
            description:
              'Metered HTTP gateway to generative media models. Money is quota internally (1 USD = 500,000 quota); USD figures are derived. Every error has the shape {"error": {"message", "type", "code"}}.',
          },
          components: {
            securitySchemes: {
              bearer: {
                type: "http",
                scheme: "bearer",
                description: "Authorization: Bearer <API_KEY>",
              },
              admin: {
                type: "http",
                scheme: "bearer",
                description: "Authorization: Bearer $ADMIN_TOKEN",
              },
            },
          },
          security: [{ bearer: [] }],
        },
      }),
    );
}
