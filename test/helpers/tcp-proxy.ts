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
  /** Hangs (as hang()) the moment a client sends these bytes, before they reach the server. */
  hangOn(bytes: string): void;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let hung = false;
  let trigger: Buffer | undefined;
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
      let tail: Buffer = Buffer.alloc(0);
      client.on('data', (chunk: Buffer) => {
        if (hung) return;
        // A message may span two chunks: the trigger is looked for in what ends the last and begins this one too.
        if (trigger !== undefined && Buffer.concat([tail, chunk]).includes(trigger)) {
          hangAll();
          return;
        }
        tail = chunk.subarray(Math.max(0, chunk.length - (trigger?.length ?? 0)));
        if (!upstream.write(chunk)) client.pause();
      });
      upstream.on('drain', () => {
        if (!hung) client.resume();
      });
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
  function hangAll(): void {
    hung = true;
    for (const socket of sockets) {
      socket.unpipe();
      socket.pause();
    }
  }
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
    hang: hangAll,
    hangOn(bytes: string) {
      trigger = Buffer.from(bytes);
    },
    async restore() {
      trigger = undefined;
      if (hung) {
        hung = false;
        for (const socket of sockets) socket.resetAndDestroy();
      }
      if (!server) await listen(port);
    },
    close: cut,
  };
}
