import 'reflect-metadata';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { GUARDS_METADATA, METHOD_METADATA, MODULE_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { OperationContract, OPERATIONS } from '@svc/common';
import { expressPath } from './operation.decorator';
import { OPERATION, OperationGuard } from './operation-guard';

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
  const bound = controllers().flatMap((controller) =>
    Object.getOwnPropertyNames(controller.prototype).flatMap((key) => {
      const handler = (controller.prototype as Record<string, unknown>)[key];
      if (typeof handler !== 'function') return [];
      const name = Reflect.getMetadata(OPERATION, handler) as string | undefined;
      if (name === undefined) return [];
      const guards = [...((Reflect.getMetadata(GUARDS_METADATA, handler) as unknown[]) ?? [])];
      return [{ name, route: `${METHODS[Reflect.getMetadata(METHOD_METADATA, handler) as number]} ${Reflect.getMetadata(PATH_METADATA, handler) as string}`, guarded: guards.includes(OperationGuard) }];
    }),
  );

  it('binds every routed operation once, at its catalog route, behind OperationGuard', () => {
    const routed = (OPERATIONS as readonly OperationContract[]).filter((op) => op.http);
    expect(bound.map((b) => b.name).sort()).toEqual(routed.map((op) => op.name).sort());
    for (const op of routed) {
      expect(bound.find((b) => b.name === op.name)).toEqual({ name: op.name, route: `${op.http!.method} ${expressPath(op.http!.path)}`, guarded: true });
    }
  });
});
