import type { Socket } from "bun";

export interface TcpProxy {
  port: number;
  /** Drops every connection and refuses new ones, as a stopped server would. */
  cut(): void;
  restore(): void;
  stop(): void;
}

interface Pair {
  upstream?: Socket<Pair>;
  pending: Uint8Array[];
}

/**
 * A TCP relay to a real server (Postgres) that a test can cut and restore, to prove
 * what happens while the server is unreachable without stopping the shared server.
 */
export function startTcpProxy(targetPort: number, targetHost = "127.0.0.1"): TcpProxy {
  const clients = new Set<Socket<Pair>>();
  let down = false;
  const listener = Bun.listen<Pair>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      async open(client) {
        if (down) {
          client.end();
          return;
        }
        client.data = { pending: [] };
        clients.add(client);
        try {
          const upstream = await Bun.connect<Pair>({
            hostname: targetHost,
            port: targetPort,
            socket: {
              data(_, chunk) {
                client.write(chunk);
              },
              close() {
                client.end();
              },
              error() {
                client.end();
              },
            },
          });
          client.data.upstream = upstream;
          for (const chunk of client.data.pending) upstream.write(chunk);
          client.data.pending = [];
        } catch {
          client.end();
        }
      },
      data(client, chunk) {
        if (client.data.upstream) client.data.upstream.write(chunk);
        else client.data.pending.push(new Uint8Array(chunk));
      },
      close(client) {
        clients.delete(client);
        client.data?.upstream?.end();
      },
      error(client) {
        client.data?.upstream?.end();
      },
    },
  });
  return {
    port: listener.port,
    cut() {
      down = true;
      for (const client of clients) {
        client.data?.upstream?.end();
        client.end();
      }
      clients.clear();
    },
    restore() {
      down = false;
    },
    stop() {
      this.cut();
      listener.stop(true);
    },
  };
}
