/**
 * A TCP proxy between the API and PostgreSQL that a scenario can break and restore, so the database becomes
 * unreachable for one API process without stopping the PostgreSQL server other tests share. Two faults:
 * - `cut()`: every connection is destroyed and new ones are refused (the server is down, or restarting);
 * - `partition()`: connections stay open but nothing gets through in either direction, and new ones are
 *   accepted but never answered (a network partition, a failover behind a virtual IP, a dropped NAT entry).
 *   Bytes sent meanwhile are held, as TCP retransmission would, and delivered in order by `restore()`.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  cut(): Promise<void>;
  partition(): void;
  /** Undoes either fault: listens again after a cut, delivers held bytes after a partition. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let partitioned = false;
  const held: { to: Socket; data: Buffer }[] = [];

  const forward = (from: Socket, to: Socket) => {
    from.on('data', (data: Buffer) => {
      if (partitioned) held.push({ to, data });
      else to.write(data);
    });
  };
  const server: Server = createServer((client) => {
    const upstream = connect(target);
    const pair = { client, upstream };
    pairs.add(pair);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      pairs.delete(pair);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    forward(client, upstream);
    forward(upstream, client);
  });
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as { port: number }).port);
      });
    });
  const port = await listen(0);
  let listening = true;

  const stopListening = async () => {
    partitioned = false;
    held.length = 0;
    if (!listening) return;
    listening = false;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const { client, upstream } of pairs) {
      client.destroy();
      upstream.destroy();
    }
    await closed;
  };
  return {
    port,
    cut: stopListening,
    partition() {
      partitioned = true;
    },
    async restore() {
      if (partitioned) {
        partitioned = false;
        for (const { to, data } of held.splice(0)) if (!to.destroyed) to.write(data);
      }
      if (!listening) {
        await listen(port);
        listening = true;
      }
    },
    close: stopListening,
  };
}
