import { Cluster, Redis } from "ioredis";

/** Either a single Redis or a Redis Cluster: every Lua script keeps its keys in one slot. */
export type RedisClient = Redis | Cluster;

export interface RedisOptions {
  /** Comma-separated seed nodes switch to the cluster client. */
  clusterNodes?: string;
}

/** A second connection with the same settings, e.g. for SUBSCRIBE, which takes a connection over. */
export function duplicateClient(client: RedisClient): RedisClient {
  return client instanceof Cluster ? client.duplicate() : client.duplicate();
}

export function connectRedis(url: string, options: RedisOptions = {}): RedisClient {
  if (options.clusterNodes) {
    const nodes = options.clusterNodes.split(",").map((node) => {
      const [host, port] = node.trim().split(":");
      return { host: host ?? "127.0.0.1", port: Number(port ?? 6379) };
    });
    return new Cluster(nodes, { redisOptions: { maxRetriesPerRequest: 3 } });
  }
  return new Redis(url, { maxRetriesPerRequest: 3, enableAutoPipelining: true });
}
