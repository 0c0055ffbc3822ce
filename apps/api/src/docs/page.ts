/**
 * Scalar's options for a page that must work with no network beyond this server. Each
 * one turns off a feature that calls Scalar's cloud, or a button that leads there.
 */
export const SCALAR_OPTIONS = {
  // Inter and JetBrains Mono come from fonts.scalar.com; the page uses system fonts.
  withDefaultFonts: false,
  // "Ask AI" (Scalar's agent at api.scalar.com), shown by default on localhost.
  agent: { disabled: true },
  // "Generate MCP", which opens dashboard.scalar.com, shown by default on localhost.
  mcp: { disabled: true },
  // The developer toolbar (Share, Deploy, Configure; registry.scalar.com), shown on localhost.
  showDeveloperTools: "never",
  // "Open in API client" leads to client.scalar.com; the built-in "Test Request" stays.
  hideClientButton: true,
  telemetry: false,
} as const;

/** JSON that is safe inside a <script> element: `<` never appears, so neither can `</script>`. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replaceAll("<", "\\u003c");
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[char]!,
  );
}

/**
 * The API reference page. The script and the document are addressed relative to the
 * page, `/swagger` and `/swagger/` alike (a bare `swagger/json` resolves to
 * `/swagger/swagger/json` from the latter), so the page also works behind a proxy that
 * serves the api under a path prefix.
 */
export function renderPage(title: string, pagePath: string): string {
  const base = pagePath.endsWith("/") ? "" : `${pagePath.slice(pagePath.lastIndexOf("/") + 1)}/`;
  const config = { ...SCALAR_OPTIONS, url: `${base}json` };
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escapeHtml(title)}</title>
  </head>
  <body>
    <div id="api-reference-app"></div>
    <script src="${escapeHtml(base)}assets/scalar.js"></script>
    <script>Scalar.createApiReference("#api-reference-app", ${scriptJson(config)});</script>
  </body>
</html>
`;
}
