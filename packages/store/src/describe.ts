/** Where a URL points, with any password hidden, for the startup line. */
function where(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparseable URL)";
  }
}

/** The line every app prints at start, so an operator sees which backends it uses. */
export function describeBackends(databaseUrl: string, redisUrl: string): string {
  return `backends: Postgres ${where(databaseUrl)} | Redis ${where(redisUrl)}`;
}
