import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a server, which a test can cut, hang and restore: cut,
 * the open connections are reset and new ones refused, as when the server behind it goes away;
 * hung, connections are taken and nothing passes either way, as with a frozen host; restored,
 * it forwards again on the same port (the connections of the hang are reset). The way to take
 * PostgreSQL away from a replica without stopping a PostgreSQL other tests share.
 */
export interface TcpProxy {
  readonly port: number;
  cut(): Promise<void>;
  hang(): void;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let hung = false;
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const listen = (port: number): Promise<number> => {
    const s = createServer((client) => {
      track(client);
      if (hung) return;
      const upstream = connect(targetPort, targetHost);
      track(upstream);
      client.pipe(upstream);
      upstream.pipe(client);
      client.once('close', () => upstream.destroy());
      upstream.once('close', () => client.destroy());
    });
    server = s;
    return new Promise((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        const address = s.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      });
    });
  };
  const port = await listen(0);
  const cut = async (): Promise<void> => {
    const s = server;
    server = undefined;
    for (const socket of sockets) socket.resetAndDestroy();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  return {
    port,
    cut,
    hang() {
      hung = true;
      for (const socket of sockets) {
        socket.unpipe();
        socket.pause();
      }
    },
    async restore() {
      if (hung) {
        hung = false;
        for (const socket of sockets) socket.resetAndDestroy();
      }
      if (!server) await listen(port);
    },
    close: cut,
  };
}
