import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * @matrixai/quic is ESM-only and this server compiles to CommonJS, where TypeScript would turn
 * `import()` into `require()`. A Function-built import() stays a real dynamic import; the package
 * is located through its exported package.json because its export map offers no `require`.
 */
const dynamicImport = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<any>;

/** The parts of @matrixai/quic this server uses (its types need module resolution this project does not use). */
export interface QuicLibrary {
  QUICServer: any;
  events: Record<string, { name: string }>;
  quiche: any;
  Logger: any;
  LogLevel: Record<string, number>;
}

export async function loadQuic(): Promise<QuicLibrary> {
  const quicPackage = createRequire(__filename).resolve('@matrixai/quic/package.json');
  const loggerPackage = createRequire(quicPackage).resolve('@matrixai/logger/package.json');
  const quic = await dynamicImport(pathToFileURL(join(quicPackage, '..', 'dist', 'index.js')).href);
  const logger = await dynamicImport(pathToFileURL(join(loggerPackage, '..', 'dist', 'index.js')).href);
  tuneCongestionControl(quic.native.quiche);
  return { QUICServer: quic.QUICServer, events: quic.events, quiche: quic.native.quiche, Logger: logger.default, LogLevel: logger.LogLevel };
}

/**
 * quiche's CUBIC with HyStart exits slow start early on loopback and small-RTT paths and roughly
 * halves throughput here; @matrixai/quic does not expose the choice, so every configuration it
 * builds gets Reno without HyStart (its last setter, setApplicationProtos, is the hook).
 */
function tuneCongestionControl(quiche: any): void {
  const proto = quiche.Config.prototype;
  if (proto.svcTuned) return;
  const setApplicationProtos = proto.setApplicationProtos;
  proto.setApplicationProtos = function (this: any, protos: string[]) {
    this.setCcAlgorithm(quiche.CongestionControlAlgorithm.Reno);
    this.enableHystart(false);
    return setApplicationProtos.call(this, protos);
  };
  proto.svcTuned = true;
}
