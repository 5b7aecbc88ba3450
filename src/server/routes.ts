/**
 * The API's record routes as data, made once from the descriptions: for each resource its paths
 * (`/{path}`, `/{path}/{uuid}`, and `/{path}/{uuid}/{child path}` where a child is created under
 * it), and on each path the operation of each method, with the Allow header any other method is
 * answered with. `matchRoute` finds a request path's route. The API core (api.ts) does each
 * operation; this table says which one a request is, and test/server/routes.test.ts checks it.
 */
import { childrenOf, RESOURCES } from '../resources/index.js';
import type { ResourceDef } from '../resources/types.js';

export type Operation = 'list' | 'get' | 'create' | 'update' | 'delete';

/** What a method on a path does: an operation on a resource (a create under a record of `parent`). */
export interface Endpoint {
  readonly op: Operation;
  readonly resource: ResourceDef;
  readonly parent?: ResourceDef | undefined;
}

/** One path of a resource: its endpoints by method, and the Allow header for any other method. */
interface Route {
  /** The path with its uuid as `{uuid}`: what the request is counted under. */
  readonly template: string;
  /** The resource whose path it is (a nested create's parent). */
  readonly resource: ResourceDef;
  readonly endpoints: ReadonlyMap<string, Endpoint>;
  readonly allow: string;
}

/** The paths a resource can have: /{path}, /{path}/{uuid} and /{path}/{uuid}/{child path}. */
interface Routes {
  readonly base?: Route | undefined;
  readonly item?: Route | undefined;
  /** By the child resource's path: notes under a property. */
  readonly nested: ReadonlyMap<string, Route | undefined>;
}

function route(endpoints: Map<string, Endpoint>, resource: ResourceDef, template: string): Route | undefined {
  if (!endpoints.size) return undefined;
  const methods = [...endpoints.keys()];
  if (endpoints.has('GET')) methods.push('HEAD');
  return { template, resource, endpoints, allow: methods.join(', ') };
}

function routesOf(r: ResourceDef): Routes {
  const base = new Map<string, Endpoint>();
  const item = new Map<string, Endpoint>();
  if (r.verbs.list) base.set('GET', { op: 'list', resource: r });
  // A record created under a parent has no create route of its own.
  if (r.verbs.create && !r.parents) base.set('POST', { op: 'create', resource: r });
  if (r.verbs.get) item.set('GET', { op: 'get', resource: r });
  if (r.verbs.update) item.set('PUT', { op: 'update', resource: r });
  if (r.verbs.delete) item.set('DELETE', { op: 'delete', resource: r });
  const nested = new Map<string, Route | undefined>();
  for (const { child } of childrenOf(r)) {
    const endpoints = new Map<string, Endpoint>();
    if (child.verbs.create) endpoints.set('POST', { op: 'create', resource: child, parent: r });
    nested.set(child.path, route(endpoints, r, `/${r.path}/{uuid}/${child.path}`));
  }
  return { base: route(base, r, `/${r.path}`), item: route(item, r, `/${r.path}/{uuid}`), nested };
}

const ROUTES: ReadonlyMap<string, Routes> = new Map(RESOURCES.map((r) => [r.path, routesOf(r)]));

/** Every record route, in the descriptions' order: a resource's own paths, then those under it. */
export function allRoutes(): Route[] {
  return [...ROUTES.values()].flatMap((x) => [x.base, x.item, ...x.nested.values()]).filter((x) => x !== undefined);
}

/** The route of a path (its segments decoded), and the uuid in it (lower case): undefined if none. */
export function matchRoute(pathname: string): { route: Route; uuid: string } | undefined {
  const [root, name, uuid, sub, ...rest] = pathname.split('/');
  if (root !== '' || name === undefined || rest.length) return undefined;
  const found = ROUTES.get(decodeSegment(name));
  if (uuid === undefined) return found?.base && { route: found.base, uuid: '' };
  if (uuid === '') return undefined;
  // A uuid in any case is the same uuid: they are stored in lower case.
  const id = decodeSegment(uuid).toLowerCase();
  if (sub === undefined) return found?.item && { route: found.item, uuid: id };
  const nested = found?.nested.get(decodeSegment(sub));
  return nested ? { route: nested, uuid: id } : undefined;
}

/** A path segment, percent-decoded: a run of escapes that is not valid UTF-8 stays as it is. */
export function decodeSegment(segment: string): string {
  return segment.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}
