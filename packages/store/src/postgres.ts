import postgres from "postgres";

export type Sql = postgres.Sql<{ bigint: bigint }>;

export interface PostgresOptions {
  /** Schema every query resolves unqualified names in; tests get one each. */
  schema?: string;
  /** Pool size. The embedded server must accept at least this many connections. */
  max?: number;
}

/**
 * Opens a pool. `bigint` columns come back as BigInt, never as a float or a string,
 * because every money figure in this gateway is a bigint of quota units.
 */
export function connectPostgres(url: string, options: PostgresOptions = {}): Sql {
  return postgres(url, {
    max: options.max ?? 10,
    idle_timeout: 30,
    connect_timeout: 10,
    onnotice: () => {},
    types: { bigint: postgres.BigInt },
    connection: options.schema ? { search_path: options.schema } : {},
  }) as unknown as Sql;
}
