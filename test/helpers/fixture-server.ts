import { after, before } from 'node:test';
import { join } from 'node:path';
import { importInto } from './cli.js';
import { fixturePath, tempDir } from './paths.js';
import { startTestServer, type TestServer } from './server.js';

/**
 * The real server over the fixture catalogue (test/fixtures/catalog.json, loaded through the
 * real CLI into a fresh SQLite file): started before the calling file's tests, closed after.
 */
export function fixtureServer(): { readonly server: TestServer } {
  const holder: { server?: TestServer } = {};
  let cleanup = (): void => {};
  before(async () => {
    const tmp = tempDir();
    cleanup = tmp.cleanup;
    const db = join(tmp.dir, 'catalog.db');
    await importInto(db, 'catalog', [fixturePath('catalog.json')]);
    holder.server = await startTestServer(db);
  });
  after(async () => {
    await holder.server?.close();
    cleanup();
  });
  return {
    get server(): TestServer {
      if (!holder.server) throw new Error('the fixture server starts in before()');
      return holder.server;
    },
  };
}
