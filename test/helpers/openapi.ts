/**
 * Every answer the server tests receive, checked against the OpenAPI document the server serves
 * (src/core/openapi.ts): its status is one the document lists for that path and method, its body
 * matches that status's schema (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses it), and its headers
 * say what the body is. A mismatch throws, so the test that received it fails: the document
 * cannot drift from the server.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../src/core/openapi.js';

type Obj = Record<string, unknown>;

const doc = openApiDocument() as { paths: Record<string, Obj>; components: { responses: Record<string, Obj> } };
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema(doc, 'openapi');

const pointerOf = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** The document's paths as patterns: `/properties/{uuid}` matches one segment in its place. */
const templates = Object.keys(doc.paths).map((t) => ({
  template: t,
  re: new RegExp(`^${t.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^/]+\}/g, '[^/]+')}$`),
}));

const validators = new Map<string, ValidateFunction>();
function validator(pointer: string): ValidateFunction {
  let v = validators.get(pointer);
  if (!v) {
    v = ajv.compile({ $ref: `openapi#${pointer}` });
    validators.set(pointer, v);
  }
  return v;
}

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** Throws when an answer to `method path` is not what the document says. */
export function checkAnswer(method: string, url: string, answer: Answer): void {
  const where = `${method} ${url} -> ${answer.status}`;
  const fail = (why: string): never => {
    throw new Error(`the answer does not match the OpenAPI document: ${where}: ${why}\n${answer.text.slice(0, 500)}`);
  };
  const path = new URL(url, 'http://x').pathname;
  const found = templates.find((t) => t.re.test(path));
  const op = found && ((doc.paths[found.template] as Obj)[method.toLowerCase()] as Obj | undefined);
  let pointer: string;
  if (!op) {
    // A path the document does not have is 404; a method its path does not take is 405.
    const expected = found ? 405 : 404;
    if (answer.status !== expected)
      fail(`expected ${expected} for a ${found ? 'method the path does not take' : 'path the document does not have'}`);
    if (expected === 405 && answer.status === 405 && !answer.headers.get('allow')) fail('a 405 without Allow');
    pointer = '/components/schemas/Error';
  } else {
    const responses = op.responses as Obj;
    let response = responses[String(answer.status)] as Obj | undefined;
    if (!response) return fail(`status ${answer.status} is not listed (listed: ${Object.keys(responses).join(', ')})`);
    const name = typeof response.$ref === 'string' ? response.$ref.split('/').pop() : undefined;
    if (name) response = doc.components.responses[name] as Obj;
    const content = response.content as Obj | undefined;
    if (!content) {
      if (answer.text !== '') fail('a body where the document says none');
      if (answer.status === 204 && answer.headers.get('content-type'))
        fail(`a 204 with Content-Type ${answer.headers.get('content-type')}`);
      if (method === 'HEAD' && answer.status !== 204 && !answer.headers.get('content-length'))
        fail('a HEAD answer without Content-Length');
      return;
    }
    // A body that is not JSON (a calendar feed's text/calendar): its Content-Type is what the document says.
    if (!content['application/json']) {
      const type = answer.headers.get('content-type') ?? '';
      if (!Object.keys(content).some((t) => t === '*/*' || type.startsWith(t)))
        fail(`Content-Type "${type}", not ${Object.keys(content)}`);
      return;
    }
    pointer = name
      ? `/components/responses/${name}/content/application~1json/schema`
      : `/paths/${pointerOf(found?.template as string)}/${method.toLowerCase()}/responses/${answer.status}/content/application~1json/schema`;
  }
  if (method === 'HEAD') {
    if (answer.text !== '') fail('a body in a HEAD answer');
    return;
  }
  const type = answer.headers.get('content-type') ?? '';
  if (!type.startsWith('application/json')) fail(`Content-Type "${type}", not application/json`);
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return fail('a body that is not JSON');
  }
  const v = validator(pointer);
  if (!v(body)) fail(ajv.errorsText(v.errors, { separator: '; ' }));
}
