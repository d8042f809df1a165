import { API_BASE_PATH, contract, type OperationContract } from '@petstore/schema';
import { fillPath, isRestOperation } from '@petstore/schema/internal';

/** What Express's router keeps of a route (Express 5, the `router` package): enough to list the paths. */
interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** A value for each parameter a route's path has (`/docs/assets/:file`). */
const SAMPLES: Readonly<Record<string, string>> = { file: 'favicon.png' };

/**
 * Every path a route of `stack` serves, and whether it serves GET: optional parts (`{/*prefix}`) left out,
 * parameters from SAMPLES.
 */
function routerPaths(stack: readonly Layer[]): { path: string; read: boolean }[] {
  return stack.flatMap((layer) => {
    if (layer.handle?.stack !== undefined) return routerPaths(layer.handle.stack);
    if (layer.route === undefined) return [];
    const read = layer.route.methods.get === true;
    return [
      layer.route.path.replace(/\{[^}]*\}/g, '').replace(/[:*](\w+)/g, (_match, name: string) => {
        const sample = SAMPLES[name];
        if (sample === undefined) throw new Error(`no sample value for :${name} in ${layer.route?.path}`);
        return sample;
      }),
    ].map((path) => ({ path, read }));
  });
}

/**
 * Every path the app routes, read from its own router and the contract, not listed by hand: the router's routes
 * (health, documentation, MCP), then the contract's REST paths (one handler compiled from the contract, so not in
 * the router), with `petId` for the path parameter. `read`: the path serves GET; `stream`: its GET never ends.
 */
export function routedPaths(app: object, petId: string): { path: string; read: boolean; stream: boolean }[] {
  const rest = Map.groupBy((Object.values(contract) as OperationContract[]).filter(isRestOperation), (op) =>
    fillPath(op.path, { petId }),
  );
  return [
    ...routerPaths((app as { router: { stack: Layer[] } }).router.stack).map((route) => ({
      ...route,
      stream: false,
    })),
    ...[...rest].map(([path, ops]) => ({
      path: `${API_BASE_PATH}${path}`,
      read: ops.some((op) => op.method === 'GET'),
      stream: ops.some((op) => op.success.stream !== undefined),
    })),
  ];
}
