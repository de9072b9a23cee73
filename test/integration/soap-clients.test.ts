// Real, independent SOAP clients loaded from the served WSDL: zeep (Python) and PHP SoapClient.
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../helpers/paths.js';
import { TEST_TOKEN } from '../helpers/server.js';
import { IDS } from '../helpers/fixture-catalog.js';
import { fixtureServer } from '../helpers/fixture-server.js';

const run = promisify(execFile);
const fixture = fixtureServer();

interface ClientReport {
  search: { name: string; children: { id: string; name: string }[] }[];
  emptySearch: unknown[];
  unmatchedSearch: unknown[];
  food: { id: string; name: string; servings: { name: string; nutrients: Record<string, number | null> }[] };
  nilFood: { servings: { nutrients: Record<string, number | null> }[] };
  unknownId: { code: string; message: string } | null;
  badDevkey: { code: string; message: string } | null;
  soap11?: { code: string; message: string } | null;
}

async function available(command: string, args: string[]): Promise<boolean> {
  try {
    await run(command, args, { timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

async function drive(t: TestContext, command: string, args: string[], probe: string[], missing: string): Promise<ClientReport | undefined> {
  if (!(await available(command, probe))) {
    t.skip(`${missing} (scripts/test-services.sh installs it where apt-get is allowed)`);
    return undefined;
  }
  const { stdout } = await run(command, args, {
    timeout: 60_000,
    env: {
      ...process.env, FOODLOOKUP_URL: fixture.server.url, FOODLOOKUP_DEVKEY: TEST_TOKEN, FOODLOOKUP_TERMS: 'cheddar cheese',
      FOODLOOKUP_FOOD_ID: IDS.sharp, FOODLOOKUP_NIL_FOOD_ID: IDS.creme,
    },
  });
  return JSON.parse(stdout) as ClientReport;
}

function checkReport(report: ClientReport): void {
  assert.equal(report.search.length, 1);
  assert.equal(report.search[0]!.name, 'Hard cheese');
  assert.deepEqual(report.search[0]!.children.map((c) => c.id).sort(), [IDS.mild, IDS.sharp].sort());
  assert.deepEqual(report.emptySearch, []);
  assert.deepEqual(report.unmatchedSearch, []);
  assert.equal(report.food.id, IDS.sharp);
  assert.equal(report.food.name, 'Cheddar cheese, sharp');
  assert.deepEqual(report.food.servings.map((s) => s.name), ['100 g', '1 slice', '1 cup, shredded']);
  const first = report.food.servings[0]!.nutrients;
  assert.ok(Math.abs(first['calories']! - 402.964) < 1e-3);
  assert.ok(Math.abs(first['fat']! - 33.1) < 1e-4);
  assert.equal(first['fiber'], null);
  assert.ok(Math.abs(report.food.servings[1]!.nutrients['fat']! - 9.268) < 1e-4);
  assert.ok(report.nilFood.servings.every((s) => Object.values(s.nutrients).every((v) => v === null)));
  assert.equal(Object.keys(report.nilFood.servings[0]!.nutrients).length, 10);
  assert.deepEqual({ code: report.unknownId?.code, message: report.unknownId?.message }, { code: 'env:Sender', message: 'Food not found' });
  assert.deepEqual({ code: report.badDevkey?.code, message: report.badDevkey?.message }, { code: 'env:Sender', message: 'Invalid developer key' });
}

describe('real SOAP clients', () => {
  test('zeep (python3-zeep) loads the WSDL, calls both operations, parses nil, empty results and faults', async (t) => {
    const report = await drive(t, '/usr/bin/python3', [join(ROOT, 'test/soap-clients/zeep_client.py')], ['-c', 'import zeep'], 'python3-zeep is not installed');
    if (!report) return;
    checkReport(report);
  });

  test('PHP SoapClient (SOAP_1_2) does the same; in its default SOAP 1.1 mode it gets VersionMismatch', async (t) => {
    const report = await drive(t, 'php', [join(ROOT, 'test/soap-clients/php_client.php')], ['-r', 'exit(class_exists("SoapClient") ? 0 : 1);'], 'php-cli with php-soap is not installed');
    if (!report) return;
    checkReport(report);
    assert.match(report.soap11?.code ?? '', /VersionMismatch$/);
  });
});
