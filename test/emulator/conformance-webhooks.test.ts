/**
 * Conformance of the current profile's webhooks with the self-hosted server's
 * (`webhooks.int.test.ts`, `v2/webhooks.ts`, `controllers/webhook.ts`) and the Terraform
 * provider's reading of the managed one: a paged list and no GET by id, write-only headers and
 * query parameters, (service, name) unique, 409 while an alert's channel names the webhook.
 */
import { expect } from 'vitest';
import { bodyIssues, conformance, errorOf, FROM, type Case, type CaseContext } from './conformance.js';

const SLACK = {
  name: 'Test Slack Webhook',
  service: 'slack',
  url: 'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX',
  description: 'Test webhook for Slack',
};
const INCIDENT_IO = {
  name: 'Test IncidentIO Webhook',
  service: 'incidentio',
  url: 'https://api.incident.io/v2/alert_events/http/ZZZZZZZZ?token=X',
  description: 'Test webhook for incident.io',
};
const GENERIC = {
  name: 'Test Generic Webhook',
  service: 'generic',
  url: 'https://example.com/webhook',
  description: 'Test generic webhook',
  headers: { 'X-Custom-Header': 'Header Value', Authorization: 'Bearer token' },
  body: '{"text": "{{title}} | {{body}} | {{link}}"}',
};
const T = FROM.webhooksTest;

async function create(t: CaseContext, body: unknown): Promise<string> {
  const response = await t.client.request('POST', 'webhooks', body);
  expect(response.status, JSON.stringify(response.raw.json)).toBe(200);
  return response.data.id as string;
}

/** The stored fingerprints of a webhook's write-only members, keyed `headers.<name>` / `queryParams.<key>`. */
async function secretsOf(t: CaseContext, id: string): Promise<Record<string, string> | undefined> {
  return (await t.stored()).secrets?.[id];
}

async function listed(t: CaseContext, query = ''): Promise<any[]> {
  const response = await t.client.request('GET', `webhooks${query}`);
  expect(response.status).toBe(200);
  return response.data;
}

const refusedBody =
  (body: () => unknown): Case['run'] =>
  async (t) => {
    const response = await t.client.request('POST', 'webhooks', body());
    expect(response.status).toBe(400);
    expect(await listed(t)).toEqual([]);
  };

const cases: Case[] = [
  // ---------------------------------------------------------------- GET /webhooks
  {
    from: T,
    name: 'should return an empty list when no webhooks exist',
    run: async (t) => {
      const response = await t.client.request('GET', 'webhooks');
      expect(response.status).toBe(200);
      expect(response.raw.headers.get('content-type')).toMatch(/application\/json/);
      if (t.variant === 'self-hosted')
        expect(response.raw.json).toEqual({ data: [], meta: { total: 0, limit: 1000, offset: 0 } });
      else expect(response.data).toEqual([]);
    },
  },
  {
    from: T,
    name: 'should paginate with limit and offset and report the total',
    run: async (t) => {
      for (const index of [0, 1, 2]) await create(t, { ...SLACK, name: `Webhook ${index}` });
      const first = await t.client.request('GET', 'webhooks?limit=2&offset=0');
      const second = await t.client.request('GET', 'webhooks?limit=2&offset=2');
      // The managed list declares no query parameter: limit and offset are not honoured there.
      expect([first.data.length, second.data.length]).toEqual(t.variant === 'self-hosted' ? [2, 1] : [3, 3]);
      if (t.variant === 'self-hosted') {
        expect([first.raw.json.meta, second.raw.json.meta]).toEqual([
          { total: 3, limit: 2, offset: 0 },
          { total: 3, limit: 2, offset: 2 },
        ]);
        expect(first.raw.headers.get('x-total-count')).toBe('3');
      }
      expect(new Set([...first.data, ...second.data].map((webhook) => webhook.id)).size).toBe(3);
    },
  },
  {
    from: T,
    name: 'should return an empty page with the correct total past the end',
    run: async (t) => {
      await create(t, SLACK);
      const response = await t.client.request('GET', 'webhooks?offset=100');
      expect(response.data).toHaveLength(t.variant === 'self-hosted' ? 0 : 1);
      if (t.variant === 'self-hosted') expect(response.raw.json.meta).toEqual({ total: 1, limit: 1000, offset: 100 });
    },
  },
  {
    from: T,
    name: 'should reject an out-of-range or non-integer limit or offset',
    run: async (t) => {
      for (const query of ['limit=0', 'limit=5000', 'offset=-1', 'limit=abc', 'limit=1.5']) {
        expect([query, (await t.client.request('GET', `webhooks?${query}`)).status]).toEqual([
          query,
          t.variant === 'self-hosted' ? 400 : 200,
        ]);
      }
    },
  },
  {
    from: T,
    name: 'should list a Slack webhook with only Slack-allowed fields',
    run: async (t) => {
      const id = await create(t, SLACK);
      expect(await listed(t)).toEqual([
        {
          id,
          name: SLACK.name,
          url: SLACK.url,
          description: SLACK.description,
          updatedAt: expect.any(String),
          createdAt: expect.any(String),
          service: 'slack',
        },
      ]);
    },
  },
  {
    from: T,
    name: 'should strip headers and body stored on a Slack webhook (and on an IncidentIO one)',
    seed: () => ({
      webhooks: [
        { ...SLACK, headers: { 'X-Secret': 'secret' }, body: '{"text": "hello"}' },
        { ...INCIDENT_IO, headers: { 'X-Secret': 'secret' }, body: '{}' },
      ],
    }),
    run: async (t) => {
      const webhooks = await listed(t);
      for (const webhook of webhooks) {
        expect(webhook).not.toHaveProperty('headers');
        expect(webhook).not.toHaveProperty('body');
        expect(await secretsOf(t, webhook.id)).toEqual({ 'headers.X-Secret': t.fingerprint('secret') });
      }
    },
  },
  {
    from: T,
    name: 'should list a Generic webhook with body but no headers',
    run: async (t) => {
      await create(t, GENERIC);
      const [webhook] = await listed(t);
      expect(webhook).toMatchObject({
        name: GENERIC.name,
        service: 'generic',
        url: GENERIC.url,
        description: GENERIC.description,
        body: GENERIC.body,
      });
      expect(webhook).not.toHaveProperty('headers');
    },
  },
  {
    from: T,
    name: 'should return multiple webhooks of different service types',
    run: async (t) => {
      for (const body of [SLACK, INCIDENT_IO, GENERIC]) await create(t, body);
      expect((await listed(t)).map((webhook) => webhook.name).sort()).toEqual([
        GENERIC.name,
        INCIDENT_IO.name,
        SLACK.name,
      ]);
    },
  },
  {
    from: T,
    name: 'should not return webhooks belonging to another team',
    run: async (t) => {
      await create(t, SLACK);
      expect((await listed(t)).map((webhook) => webhook.name)).toEqual([SLACK.name]);
      expect((await t.other.request('GET', 'webhooks')).data.map((webhook: { id: string }) => webhook.id)).toEqual([
        t.otherIds.webhook,
      ]);
    },
  },
  {
    from: T,
    name: 'should work with a minimal Slack webhook (no optional fields)',
    seed: () => ({ webhooks: [{ name: 'Minimal Slack Webhook', service: 'slack' }] }),
    run: async (t) => {
      const [webhook] = await listed(t);
      expect(Object.keys(webhook).sort()).toEqual(['createdAt', 'id', 'name', 'service', 'updatedAt']);
    },
  },
  {
    from: T,
    name: 'should require authentication',
    run: async (t) => {
      expect((await t.client.request('GET', 'webhooks', undefined, null)).status).toBe(401);
      expect((await t.client.request('POST', 'webhooks', SLACK, null)).status).toBe(401);
    },
  },
  {
    from: FROM.webhooksRouter,
    name: 'has no GET by id (a webhook is read from the list)',
    run: async (t) => {
      const id = await create(t, SLACK);
      expect((await t.client.request('GET', `webhooks/${id}`)).status).toBe(t.variant === 'managed' ? 405 : 404);
    },
  },

  // ---------------------------------------------------------------- POST /webhooks
  {
    from: T,
    name: 'should create a webhook and never return sensitive fields',
    run: async (t) => {
      const response = await t.client.request('POST', 'webhooks', {
        ...GENERIC,
        queryParams: { token: 'secret-token' },
      });
      expect(response.status).toBe(200);
      expect(response.data).toMatchObject({
        id: expect.stringMatching(/^[0-9a-f]{24}$/),
        name: GENERIC.name,
        service: 'generic',
        url: GENERIC.url,
        body: GENERIC.body,
      });
      expect(response.data).not.toHaveProperty('headers');
      expect(response.data).not.toHaveProperty('queryParams');
      expect(await secretsOf(t, response.data.id)).toEqual({
        'headers.X-Custom-Header': t.fingerprint('Header Value'),
        'headers.Authorization': t.fingerprint('Bearer token'),
        'queryParams.token': t.fingerprint('secret-token'),
      });
      expect(JSON.stringify(await t.stored())).not.toContain('Bearer token');
    },
  },
  {
    from: T,
    name: 'should reject a duplicate service + name',
    run: async (t) => {
      await create(t, SLACK);
      const response = await t.client.request('POST', 'webhooks', SLACK);
      expect([response.status, errorOf(t, response)]).toEqual([
        400,
        'A webhook with this service and name already exists',
      ]);
      // The same name on another service is another webhook.
      await create(t, { ...GENERIC, name: SLACK.name });
    },
  },
  { from: T, name: 'should reject an invalid url', run: refusedBody(() => ({ ...SLACK, url: 'not-a-url' })) },
  {
    from: T,
    name: 'should reject a private webhook URL without persisting it',
    run: async (t) => {
      for (const url of [
        'http://10.0.0.1/webhook',
        'http://127.0.0.1:8080/x',
        'http://localhost/x',
        'http://[::1]/x',
        'http://[::ffff:192.168.1.1]/x',
        'http://169.254.169.254/latest',
      ]) {
        const response = await t.client.request('POST', 'webhooks', { ...GENERIC, url });
        expect([url, response.status, errorOf(t, response)]).toEqual([
          url,
          400,
          'Webhook URL resolves to a private or reserved address.',
        ]);
      }
      expect(await listed(t)).toEqual([]);
    },
  },
  {
    from: FROM.webhooksRouter,
    name: 'refuses a Slack webhook off slack.com, and a URL that is not http(s)',
    run: async (t) => {
      const offSlack = await t.client.request('POST', 'webhooks', { ...SLACK, url: 'https://example.com/hook' });
      expect([offSlack.status, errorOf(t, offSlack)]).toEqual([
        400,
        "Slack Webhook URL https://example.com/hook does not have hostname that ends in 'slack.com'",
      ]);
      const ftp = await t.client.request('POST', 'webhooks', { ...GENERIC, url: 'ftp://example.com/hook' });
      expect([ftp.status, errorOf(t, ftp)]).toEqual([400, 'Webhook URL must use HTTP or HTTPS']);
    },
  },
  ...(['headers', 'queryParams', 'body'] as const).map(
    (member): Case => ({
      from: T,
      name: `should reject ${member} on a slack webhook (unsupported by the service)`,
      run: async (t) => {
        const response = await t.client.request('POST', 'webhooks', {
          ...SLACK,
          [member]: member === 'body' ? '{"text": "hi"}' : { 'X-Custom': 'value' },
        });
        expect([response.status, errorOf(t, response)]).toEqual([
          400,
          bodyIssues(t, `${member}: ${member} is not supported for the slack webhook service`),
        ]);
      },
    }),
  ),
  ...[
    {
      name: 'should reject header values with control characters',
      extra: { headers: { 'X-Bad': 'line1\nline2' } },
      detail: 'headers.X-Bad: Header values cannot contain control characters',
    },
    {
      name: 'should reject query param values with control characters',
      extra: { queryParams: { token: 'line1\r\nX-Injected: evil' } },
      detail: 'queryParams.token: Query parameter values cannot contain control characters',
    },
    {
      name: 'should reject query param names with control characters',
      extra: { queryParams: { 'bad\nkey': 'value' } },
      detail: 'queryParams.bad\nkey: Query parameter names cannot contain control characters',
    },
    {
      name: 'should reject a header name with characters outside the HTTP token charset',
      extra: { headers: { 'X-Bad@Name': 'value' } },
      detail: "headers.X-Bad@Name: Invalid header name. Only alphanumeric characters and !#$%&'*+-.^_`|~ are allowed",
    },
    {
      name: 'should reject a header name containing a colon',
      extra: { headers: { 'X-Bad:Name': 'value' } },
      detail: "headers.X-Bad:Name: Invalid header name. Only alphanumeric characters and !#$%&'*+-.^_`|~ are allowed",
    },
    {
      name: 'should reject a header name that starts with a digit',
      extra: { headers: { '1-Header': 'value' } },
      detail: 'headers.1-Header: Header name cannot start with a number',
    },
    {
      name: 'should reject an empty header name',
      extra: { headers: { '': 'value' } },
      detail: 'headers.: Header name cannot be empty',
    },
    {
      name: 'refuses a header value that is not text (z.record of strings)',
      extra: { headers: { 'X-Count': 1 } },
      detail: 'headers.X-Count: Expected string, received number',
    },
  ].map(
    ({ name, extra, detail }): Case => ({
      from: T,
      name,
      run: async (t) => {
        const response = await t.client.request('POST', 'webhooks', { ...GENERIC, ...extra });
        expect([response.status, errorOf(t, response)]).toEqual([400, bodyIssues(t, detail)]);
      },
    }),
  ),
  ...[
    { name: 'should reject an over-long name', body: () => ({ ...GENERIC, name: 'x'.repeat(1025) }) },
    {
      name: 'should reject an over-long url',
      body: () => ({ ...GENERIC, url: `https://example.com/${'a'.repeat(2049)}` }),
    },
    { name: 'should reject an over-long description', body: () => ({ ...GENERIC, description: 'x'.repeat(2049) }) },
    { name: 'should reject an over-long body', body: () => ({ ...GENERIC, body: 'x'.repeat(16 * 1024 + 1) }) },
    {
      name: 'should reject an over-long header value',
      body: () => ({ ...GENERIC, headers: { 'X-Big': 'x'.repeat(4097) } }),
    },
    {
      name: 'should reject an over-long query param value',
      body: () => ({ ...GENERIC, queryParams: { token: 'x'.repeat(4097) } }),
    },
    {
      name: 'should reject more than 100 headers',
      body: () => ({
        ...GENERIC,
        headers: Object.fromEntries(Array.from({ length: 101 }, (_, index) => [`X-H-${index}`, 'v'])),
      }),
    },
    {
      name: 'should reject more than 100 query params',
      body: () => ({
        ...GENERIC,
        queryParams: Object.fromEntries(Array.from({ length: 101 }, (_, index) => [`p${index}`, 'v'])),
      }),
    },
    { name: 'should reject a name that is only blanks (it is trimmed)', body: () => ({ ...GENERIC, name: '   ' }) },
  ].map(({ name, body }): Case => ({ from: `${T} (field size caps)`, name, run: refusedBody(body) })),

  // ---------------------------------------------------------------- PUT /webhooks/:id
  {
    from: T,
    name: 'should reject a private webhook URL without updating it',
    run: async (t) => {
      const id = await create(t, GENERIC);
      const response = await t.client.request('PUT', `webhooks/${id}`, { ...GENERIC, url: 'http://[fd00::1]/webhook' });
      expect([response.status, errorOf(t, response)]).toEqual([
        400,
        'Webhook URL resolves to a private or reserved address.',
      ]);
      expect((await listed(t))[0].url).toBe(GENERIC.url);
    },
  },
  {
    from: T,
    name: 'should replace readable fields but preserve omitted write-only fields when the destination is unchanged',
    run: async (t) => {
      const id = await create(t, { ...GENERIC, queryParams: { token: 'secret-token' } });
      const before = await secretsOf(t, id);
      const response = await t.client.request('PUT', `webhooks/${id}`, {
        name: 'Renamed Generic',
        service: 'generic',
        url: GENERIC.url,
      });
      expect(response.status).toBe(200);
      expect(response.data).toMatchObject({ id, name: 'Renamed Generic', url: GENERIC.url });
      for (const member of ['headers', 'queryParams', 'body', 'description'])
        expect(response.data).not.toHaveProperty(member);
      expect(await secretsOf(t, id)).toEqual(before);
    },
  },
  {
    from: T,
    name: 'should NOT forward stored write-only secrets when the url changes',
    run: async (t) => {
      const id = await create(t, {
        ...GENERIC,
        headers: { Authorization: 'Bearer super-secret' },
        queryParams: { token: 'secret-token' },
      });
      const response = await t.client.request('PUT', `webhooks/${id}`, {
        name: GENERIC.name,
        service: 'generic',
        url: 'https://attacker.example.com/steal',
      });
      expect(response.data.url).toBe('https://attacker.example.com/steal');
      expect(await secretsOf(t, id)).toBeUndefined();
    },
  },
  {
    from: T,
    name: 'should clear stored write-only secrets when the service changes',
    run: async (t) => {
      const id = await create(t, { ...GENERIC, headers: { Authorization: 'Bearer super-secret' } });
      expect(
        (await t.client.request('PUT', `webhooks/${id}`, { name: GENERIC.name, service: 'slack', url: SLACK.url }))
          .status,
      ).toBe(200);
      expect(await secretsOf(t, id)).toBeUndefined();
    },
  },
  {
    from: T,
    name: 'should keep re-supplied write-only fields when the url changes',
    run: async (t) => {
      const id = await create(t, {
        ...GENERIC,
        headers: { Authorization: 'Bearer old-secret' },
        queryParams: { token: 'old' },
      });
      await t.client.request('PUT', `webhooks/${id}`, {
        name: GENERIC.name,
        service: 'generic',
        url: 'https://example.com/new-but-trusted',
        headers: { Authorization: 'Bearer new-secret' },
      });
      expect(await secretsOf(t, id)).toEqual({ 'headers.Authorization': t.fingerprint('Bearer new-secret') });
    },
  },
  {
    from: T,
    name: 'should clear write-only fields when an explicit empty object is sent',
    run: async (t) => {
      const id = await create(t, { ...GENERIC, queryParams: { token: 'kept' } });
      await t.client.request('PUT', `webhooks/${id}`, {
        name: GENERIC.name,
        service: 'generic',
        url: GENERIC.url,
        headers: {},
      });
      expect(await secretsOf(t, id)).toEqual({ 'queryParams.token': t.fingerprint('kept') });
    },
  },
  {
    from: T,
    name: 'should reject renaming a webhook onto an existing service + name',
    run: async (t) => {
      await create(t, SLACK);
      const id = await create(t, { ...SLACK, name: 'Another Slack Webhook' });
      const response = await t.client.request('PUT', `webhooks/${id}`, SLACK);
      expect([response.status, errorOf(t, response)]).toEqual([
        400,
        'A webhook with this service and name already exists',
      ]);
      // Sending a webhook's own (service, name) back is no conflict.
      expect(
        (await t.client.request('PUT', `webhooks/${id}`, { ...SLACK, name: 'Another Slack Webhook' })).status,
      ).toBe(200);
    },
  },
  {
    from: T,
    name: 'should return 404 for a webhook belonging to another team, and for a non-existent one',
    run: async (t) => {
      for (const id of [t.otherIds.webhook, '0123456789abcdef01234567']) {
        const response = await t.client.request('PUT', `webhooks/${id}`, SLACK);
        expect([response.status, errorOf(t, response)]).toEqual([404, 'Webhook not found']);
        if (t.variant === 'self-hosted') expect(response.raw.json).toEqual({ message: 'Webhook not found' });
      }
      expect((await t.other.request('GET', 'webhooks')).data[0].name).toBe('Other Team Webhook');
    },
  },

  // ---------------------------------------------------------------- DELETE /webhooks/:id
  {
    from: T,
    name: 'should delete a webhook',
    run: async (t) => {
      const id = await create(t, GENERIC);
      const response = await t.client.request('DELETE', `webhooks/${id}`);
      expect(response.status).toBe(200);
      expect(response.raw.json).toEqual(t.variant === 'managed' ? { status: 200, requestId: expect.any(String) } : {});
      expect(await listed(t)).toEqual([]);
      expect(await secretsOf(t, id)).toBeUndefined();
    },
  },
  {
    from: T,
    name: 'should return 404 for a webhook belonging to another team',
    run: async (t) => {
      expect((await t.client.request('DELETE', `webhooks/${t.otherIds.webhook}`)).status).toBe(404);
      expect((await t.other.request('GET', 'webhooks')).data).toHaveLength(1);
    },
  },
  {
    from: T,
    name: 'should return 409 (not orphan alerts) when an alert still references the webhook',
    run: async (t) => {
      const id = await create(t, SLACK);
      const search = await t.client.request('POST', 'saved-searches', { name: 'errors', sourceId: t.ids.sources.log });
      const alert = await t.client.request('POST', 'alerts', {
        savedSearchId: search.data.id,
        threshold: 1,
        interval: '5m',
        thresholdType: 'above',
        channel: { type: 'webhook', webhookId: id },
      });
      expect(alert.status).toBe(200);
      const response = await t.client.request('DELETE', `webhooks/${id}`);
      expect([response.status, errorOf(t, response)]).toEqual([
        409,
        'Cannot delete webhook: 1 alert(s) still reference it. Reassign or remove those alerts first.',
      ]);
      expect(await listed(t)).toHaveLength(1);
      expect((await t.client.request('DELETE', `alerts/${alert.data.id}`)).status).toBe(200);
      expect((await t.client.request('DELETE', `webhooks/${id}`)).status).toBe(200);
    },
  },
  {
    from: FROM.webhookController,
    name: 'deleteWebhook counts alerts by `channel.webhookId` only: a webhook an alert names past its first channel can be deleted',
    // Only the self-hosted alert has a list of channels (the managed document's has one channel).
    only: 'self-hosted',
    run: async (t) => {
      const first = await create(t, GENERIC);
      const second = await create(t, { ...GENERIC, name: 'second' });
      const search = await t.client.request('POST', 'saved-searches', { name: 'errors', sourceId: t.ids.sources.log });
      const channels = [first, second].map((webhookId) => ({ type: 'webhook', webhookId }));
      expect(
        (
          await t.client.request('POST', 'alerts', {
            savedSearchId: search.data.id,
            threshold: 1,
            interval: '5m',
            thresholdType: 'above',
            channels,
          })
        ).status,
      ).toBe(200);
      expect((await t.client.request('DELETE', `webhooks/${first}`)).status).toBe(409);
      expect((await t.client.request('DELETE', `webhooks/${second}`)).status).toBe(200);
    },
  },
];

conformance('webhooks', cases);
