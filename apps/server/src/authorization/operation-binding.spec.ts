import 'reflect-metadata';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GUARDS_METADATA, METHOD_METADATA, MODULE_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { OperationContract, OPERATIONS, subRoutes } from '@svc/common';
import { expressPath } from './operation.decorator';
import { OPERATION, OperationGuard, SUB_ROUTE } from './operation-guard';

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'];

/** Every controller of every module of the server, as Nest would find it. */
function controllers(): Function[] {
  const root = join(__dirname, '..');
  const modules = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.module.ts'));
  const found = new Set<Function>();
  for (const file of modules) {
    for (const exported of Object.values(require(join(root, file)) as Record<string, unknown>)) {
      if (typeof exported !== 'function') continue;
      for (const controller of (Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, exported) ?? []) as Function[]) found.add(controller);
    }
  }
  return [...found];
}

/*
 * A catalog route cannot be served without its contract: every routed operation of the catalog is
 * bound by exactly one handler, through @Operation (or @Handles), at the catalog's method and path,
 * behind OperationGuard (the capability, then the input schema).
 */
describe('catalog routes are bound from the catalog', () => {
  const handlers = controllers().flatMap((controller) =>
    Object.getOwnPropertyNames(controller.prototype).flatMap((key) => {
      const handler = (controller.prototype as Record<string, unknown>)[key];
      if (typeof handler !== 'function' || Reflect.getMetadata(PATH_METADATA, handler) === undefined) return [];
      const guards = [...((Reflect.getMetadata(GUARDS_METADATA, handler) as unknown[]) ?? [])];
      return [
        {
          name: (Reflect.getMetadata(OPERATION, handler) ?? Reflect.getMetadata(SUB_ROUTE, handler)) as string | undefined,
          route: `${METHODS[Reflect.getMetadata(METHOD_METADATA, handler) as number]} ${Reflect.getMetadata(PATH_METADATA, handler) as string}`,
          guarded: guards.includes(OperationGuard),
        },
      ];
    }),
  );
  const bound = handlers.filter((h) => h.name !== undefined);

  it('binds every routed operation once, at its catalog route, behind OperationGuard', () => {
    const routed = (OPERATIONS as readonly OperationContract[]).filter((op) => op.http);
    expect(bound.filter((b) => !b.name!.includes('.')).map((b) => b.name).sort()).toEqual(routed.map((op) => op.name).sort());
    for (const op of routed) {
      expect(bound.find((b) => b.name === op.name)).toEqual({ name: op.name, route: `${op.http!.method} ${expressPath(op.http!.path)}`, guarded: true });
    }
  });

  it("binds every REST route of an operation's `routes` (files, deploy, job logs, by-path reads) once, at its catalog route, behind OperationGuard", () => {
    const rest = subRoutes().filter(({ route }) => !route.stream);
    expect(bound.filter((b) => b.name!.includes('.')).map((b) => b.name).sort()).toEqual(rest.map(({ name }) => name).sort());
    for (const { name, route } of rest) {
      expect(bound.find((b) => b.name === name)).toEqual({ name, route: `${route.method} ${expressPath(route.path)}`, guarded: true });
    }
  });

  it('leaves no catalog route to a handler that restates it (a plain @Get/@Post at the same method and path)', () => {
    const catalogRoutes = new Set([
      ...(OPERATIONS as readonly OperationContract[]).filter((op) => op.http).map((op) => `${op.http!.method} ${expressPath(op.http!.path)}`),
      ...subRoutes().map(({ route }) => `${route.method} ${expressPath(route.path)}`),
    ]);
    expect(handlers.filter((h) => h.name === undefined && catalogRoutes.has(h.route)).map((h) => h.route)).toEqual([]);
  });

  it('spells no client stream path outside the catalog: ClientStreamRouter takes them from there', () => {
    const root = join(__dirname, '..');
    const sources = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts'));
    const restating = sources.filter((file) => /['`"]\/?v1\/devices/.test(readFileSync(join(root, file), 'utf8')));
    expect(restating).toEqual([]);
  });
});
