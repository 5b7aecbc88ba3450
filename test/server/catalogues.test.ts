/**
 * Statuses, contact types and competencies (docs/api.md, "Statuses, contact types and competencies"): their
 * own CRUD, and how properties and contacts carry them: inputs by uuid or label, embeds, filters
 * by the whole label, deletes that take them off their records, the 422s, and the scopes an
 * embed, a filter or a label needs. Run on both stores.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Account, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** An account with statuses For Let, "Not for let (owner occupied)" (property), Active (contact), a type and two competencies. */
async function catalogue(): Promise<{ a: Account; ids: Record<string, string> }> {
  const a = await server.newAccount();
  const ids: Record<string, string> = {};
  const make = async (path: string, body: Record<string, unknown>, key: string) => {
    const res = await a.api('POST', path, body);
    expect(res.status, res.text).toBe(201);
    ids[key] = res.body.data.uuid;
  };
  await make('/statuses', { label: 'For Let', type: { code: 2 } }, 'let');
  await make('/statuses', { label: 'Not for let (owner occupied)', type: { code: 2 } }, 'notLet');
  await make('/statuses', { label: 'Active', type: { code: 1 } }, 'active');
  await make('/types', { label: 'Tenant' }, 'tenant');
  await make('/competencies', { label: 'Plumbing' }, 'plumbing');
  await make('/competencies', { label: 'Photography' }, 'photo');
  return { a, ids };
}

describe('statuses, types and competencies', () => {
  it('have full CRUD, a fuzzy label filter, and a status its type {code, name}', async () => {
    const { a, ids } = await catalogue();
    const got = await a.api('GET', `/statuses/${ids.let}`);
    expect(got.body.data).toMatchObject({ label: 'For Let', type: { code: 2, name: 'Property' } });
    const listed = await a.api('GET', '/statuses?label=let');
    expect(listed.body.data.map((s: { label: string }) => s.label)).toEqual([
      'For Let',
      'Not for let (owner occupied)',
    ]);
    expect((await a.api('GET', '/statuses?type=1')).body.data.map((s: { label: string }) => s.label)).toEqual([
      'Active',
    ]);
    const put = await a.api('PUT', `/types/${ids.tenant}`, { label: 'Tenants' });
    expect(put.status).toBe(200);
    expect(put.body.data.label).toBe('Tenants');
    expect((await a.api('DELETE', `/competencies/${ids.photo}`)).status).toBe(204);
    expect((await a.api('GET', '/competencies')).body.meta.pagination.total).toBe(1);
    const bad = await a.api('POST', '/statuses', { label: 'X', type: { code: 3 } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(['type.code']);
    const noLabel = await a.api('POST', '/types', {});
    expect(noLabel.status).toBe(422);
    expect(noLabel.body.errors).toEqual({ label: ['The label field is required.'] });
  });
});

describe('a property’s status', () => {
  it('is given by label (ASCII case aside) or uuid, shown with embed=status, cleared with null', async () => {
    const { a, ids } = await catalogue();
    const made = await a.api('POST', '/properties', {
      address: '1 High St',
      postcode: 'LS1 1AA',
      status: { label: 'for let' },
    });
    expect(made.status, made.text).toBe(201);
    // Not shown unless embedded.
    expect(made.body.data.status).toBeUndefined();
    const uuid = made.body.data.uuid;
    const got = await a.api('GET', `/properties/${uuid}?embed=status`);
    expect(got.body.data.status).toEqual({
      data: { uuid: ids.let, label: 'For Let', type: { code: 2, name: 'Property' } },
    });
    const byUuid = await a.api('PUT', `/properties/${uuid}`, {
      address: '1 High St',
      postcode: 'LS1 1AA',
      status: { uuid: ids.notLet },
    });
    expect(byUuid.status, byUuid.text).toBe(200);
    expect((await a.api('GET', `/properties/${uuid}?embed=status`)).body.data.status.data.uuid).toBe(ids.notLet);
    await a.api('PUT', `/properties/${uuid}`, { address: '1 High St', postcode: 'LS1 1AA', status: null });
    expect((await a.api('GET', `/properties/${uuid}?embed=status`)).body.data.status).toEqual({ data: null });
  });

  it('is refused (422 naming the field) when unknown, ambiguous, or a Contact status', async () => {
    const { a } = await catalogue();
    // A label names one status of a type: "More than one" is a contact's email's alone.
    await a.api('POST', '/statuses', { label: 'Sold', type: { code: 2 } });
    expect((await a.api('POST', '/statuses', { label: 'sold', type: { code: 2 } })).status).toBe(422);
    const body = (status: unknown) => ({ address: '1 High St', postcode: 'LS1 1AA', status });
    const cases: [unknown, RegExp][] = [
      [{ label: 'Let Agreed' }, /^No status has label "Let Agreed"\.$/],
      [{ label: 'Active' }, /is a Contact status; a property's status must be a Property status/],
      [{ name: 'For Let' }, /must name one status by uuid or label/],
      ['For Let', /must name one status by uuid or label/],
    ];
    for (const [status, message] of cases) {
      const res = await a.api('POST', '/properties', body(status));
      expect(res.status, JSON.stringify(status)).toBe(422);
      expect(res.body.errors.status[0], JSON.stringify(status)).toMatch(message);
    }
    expect((await a.api('GET', '/properties')).body.meta.pagination.total).toBe(0);
  });

  it('filters by the whole label, not a substring; by uuid; several with []', async () => {
    const { a, ids } = await catalogue();
    const make = async (address: string, status: unknown) =>
      (await a.api('POST', '/properties', { address, postcode: 'LS1 1AA', status })).body.data.uuid;
    const let1 = await make('1 Let St', { label: 'For Let' });
    const owner = await make('2 Owner St', { label: 'Not for let (owner occupied)' });
    await make('3 None St', null);
    const list = async (q: string) =>
      (await a.api('GET', `/properties?${q}`)).body.data.map((p: { uuid: string }) => p.uuid);
    expect(await list('status[label]=for%20LET')).toEqual([let1]);
    expect(await list(`status[uuid]=${ids.notLet}`)).toEqual([owner]);
    expect(await list('status[label][]=For%20Let&status[label][]=Not%20for%20let%20(owner%20occupied)')).toEqual([
      let1,
      owner,
    ]);
    const bad = await a.api('GET', '/properties?status[type]=2');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/status\[\.\.\.\] takes uuid or label/);
  });

  it('keeps its kind while records have it: a Property status in use cannot become a Contact status', async () => {
    const { a, ids } = await catalogue();
    await a.api('POST', '/properties', { address: '1', postcode: 'LS1', status: { uuid: ids.let } });
    const res = await a.api('PUT', `/statuses/${ids.let}`, { type: { code: 1 } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ type: ['The type cannot change while properties have this status.'] });
    // Unused, it can; and a label change is always fine.
    expect((await a.api('PUT', `/statuses/${ids.notLet}`, { type: { code: 1 } })).status).toBe(200);
    expect((await a.api('PUT', `/statuses/${ids.let}`, { label: 'To Let', type: { code: 2 } })).status).toBe(200);
  });

  it('is set to null on its records when the status is deleted', async () => {
    const { a, ids } = await catalogue();
    const p = await a.api('POST', '/properties', { address: '1', postcode: 'LS1', status: { uuid: ids.let } });
    expect((await a.api('DELETE', `/statuses/${ids.let}`)).status).toBe(204);
    const got = await a.api('GET', `/properties/${p.body.data.uuid}?embed=status`);
    expect(got.status).toBe(200);
    expect(got.body.data.status).toEqual({ data: null });
  });
});

describe('a contact’s status, type and competencies', () => {
  it('are set on create, replaced on update, embedded, filtered, and taken off when deleted', async () => {
    const { a, ids } = await catalogue();
    const made = await a.api('POST', '/contacts', {
      name: 'Ann',
      email: 'ann@example.com',
      status: { label: 'Active' },
      type: { label: 'tenant' },
      competencies: [{ label: 'plumbing' }, { uuid: ids.photo }, { label: 'Plumbing' }],
    });
    expect(made.status, made.text).toBe(201);
    const uuid = made.body.data.uuid;
    await a.api('POST', '/contacts', { name: 'Bob', email: 'bob@example.com', competencies: [] });
    const embed = '?embed=status,type,competencies';
    const got = (await a.api('GET', `/contacts/${uuid}${embed}`)).body.data;
    expect(got.status.data.label).toBe('Active');
    expect(got.type).toEqual({ data: { uuid: ids.tenant, label: 'Tenant' } });
    // A set holds each record once, in their creation order.
    expect(got.competencies.data.map((c: { label: string }) => c.label)).toEqual(['Plumbing', 'Photography']);
    const names = async (q: string) =>
      (await a.api('GET', `/contacts?${q}`)).body.data.map((c: { name: string }) => c.name);
    expect(await names('competencies[label]=PHOTOGRAPHY')).toEqual(['Ann']);
    expect(await names(`type[uuid]=${ids.tenant}`)).toEqual(['Ann']);
    expect(await names('status[label]=active&competencies[label]=plumbing')).toEqual(['Ann']);
    // Update replaces the set; an update that leaves it out keeps it.
    await a.api('PUT', `/contacts/${uuid}`, { competencies: [{ label: 'Photography' }] });
    await a.api('PUT', `/contacts/${uuid}`, { company: 'Acme', type: null });
    const after = (await a.api('GET', `/contacts/${uuid}${embed}`)).body.data;
    expect(after.competencies.data.map((c: { label: string }) => c.label)).toEqual(['Photography']);
    expect(after.type).toEqual({ data: null });
    expect(after.company).toBe('Acme');
    // Deleting a competency takes it off every contact.
    expect((await a.api('DELETE', `/competencies/${ids.photo}`)).status).toBe(204);
    expect((await a.api('GET', `/contacts/${uuid}?embed=competencies`)).body.data.competencies).toEqual({ data: [] });
  });

  it('a Property status on a contact, or an unknown competency, is a 422 and nothing is written', async () => {
    const { a } = await catalogue();
    const wrong = await a.api('POST', '/contacts', { name: 'A', email: 'a@x.com', status: { label: 'For Let' } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors.status[0]).toMatch(/is a Property status; a contact's status must be a Contact status/);
    const unknown = await a.api('POST', '/contacts', {
      name: 'A',
      email: 'a@x.com',
      competencies: [{ label: 'Plumbing' }, { label: 'Juggling' }],
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toEqual({ 'competencies.1': ['No competency has label "Juggling".'] });
    const notList = await a.api('POST', '/contacts', { name: 'A', email: 'a@x.com', competencies: { label: 'x' } });
    expect(notList.status).toBe(422);
    expect(Object.keys(notList.body.errors)).toEqual(['competencies']);
    expect((await a.api('GET', '/contacts')).body.meta.pagination.total).toBe(0);
  });

  it('one account cannot name or see another’s statuses', async () => {
    const { ids } = await catalogue();
    const other = await server.newAccount();
    const res = await other.api('POST', '/properties', { address: '1', postcode: 'L', status: { uuid: ids.let } });
    expect(res.status).toBe(422);
    expect((await other.api('GET', `/statuses/${ids.let}`)).status).toBe(404);
    expect((await other.api('GET', `/properties?status[uuid]=${ids.let}`)).body.data).toEqual([]);
  });
});

describe('scopes', () => {
  it('an embed, a filter or a label across resources needs the other resource’s read scope', async () => {
    const { a, ids } = await catalogue();
    await a.api('POST', '/properties', { address: '1', postcode: 'L', status: { label: 'For Let' } });
    const { api } = await a.token2(['properties.read', 'properties.write', 'contacts.read', 'contacts.write']);
    const cases: [string, string, unknown?][] = [
      ['GET', '/properties?embed=status'],
      ['GET', '/properties?status[label]=For%20Let'],
      ['GET', '/contacts?competencies[label]=Plumbing'],
      ['GET', '/contacts?embed=type'],
      ['POST', '/properties', { address: '1', postcode: 'L', status: { label: 'For Let' } }],
      ['POST', '/contacts', { name: 'A', email: 'a@x.com', competencies: [{ label: 'Plumbing' }] }],
    ];
    for (const [method, path, body] of cases) {
      const res = await api(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.message).toMatch(/lacks the (statuses|types|competencies)\.read scope/);
    }
    // By uuid, a write needs no read scope of the catalogue (as a property's contact by uuid).
    const byUuid = await api('POST', '/properties', { address: '2', postcode: 'L', status: { uuid: ids.let } });
    expect(byUuid.status, byUuid.text).toBe(201);
    // And a full-scope token has the scopes of every resource.
    expect((await a.api('GET', '/statuses')).status).toBe(200);
  });
});
