/**
 * The HTTP application for `pm serve`: hono in front of the API's request handling (api.ts).
 * Building the app is separate from listening (see index.ts); everything it needs is passed in.
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { type ApiOptions, bodyTooLarge, createApi, MAX_BODY_BYTES } from './api.js';

export { MAX_BODY_BYTES } from './api.js';

export function createApp(opts: ApiOptions): Hono {
  const api = createApi(opts);
  const app = new Hono();
  const limitBody = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw bodyTooLarge();
    },
  });

  // HEAD reaches this handler too: hono routes it as GET and sends the answer without its body.
  app.all('*', async (c) => {
    let bodyRead = false;
    const res = await api({
      method: c.req.method,
      url: c.req.url,
      header: (name) => c.req.header(name),
      readBody: async () => {
        // hono's bodyLimit: a declared length over the limit is refused, a body of undeclared
        // length is buffered up to the limit and refused past it.
        await limitBody(c, async () => {});
        const text = await c.req.text();
        bodyRead = true;
        return text;
      },
    });
    // An answer sent before the request body was read (401, 403, 413, 415, 405, ...) closes the
    // connection: the unread rest of the body would otherwise be left on a socket the client reuses.
    const hasBody = (c.req.header('content-length') ?? '0') !== '0' || c.req.header('transfer-encoding') !== undefined;
    if (hasBody && !bodyRead) res.headers.Connection = 'close';
    const body = res.body === undefined ? null : JSON.stringify(res.body);
    return new Response(body, { status: res.status, headers: res.headers });
  });
  return app;
}
