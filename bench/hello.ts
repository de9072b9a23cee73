/**
 * Scenario 0, the ceiling: a bare Fastify hello-world, started by the bench in the same run.
 * `/bytes/N` answers a JSON body of exactly N bytes, made once: the ceiling for routes whose
 * answers are large and already made (the Zipf mix's are mostly response-cache hits).
 */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', () => ({ hello: 'world' }));
const bodies = new Map<number, Buffer>();
app.get<{ Params: { n: string } }>('/bytes/:n', (request, reply) => {
  const n = Math.max(16, Math.min(Number(request.params.n) || 16, 1 << 20));
  let body = bodies.get(n);
  if (!body) {
    body = Buffer.from(`{"pad":"${'x'.repeat(n - 10)}"}`);
    bodies.set(n, body);
  }
  return reply.type('application/json; charset=utf-8').send(body);
});
await app.listen({ host: '127.0.0.1', port: Number(process.argv[2] ?? 0) });
const address = app.server.address();
process.stdout.write(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}\n`);
