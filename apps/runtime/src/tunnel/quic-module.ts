import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * @matrixai/quic is ESM-only and the runtime compiles to CommonJS, where TypeScript would turn
 * `import()` into `require()`. A Function-built import() stays a real dynamic import; the package
 * is found through its exported package.json (its export map offers no `require`). Loaded on
 * first use only, so a runtime that never dials QUIC never loads the native module.
 */
const dynamicImport = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<any>;

/** The parts of @matrixai/quic the runtime uses (its types need a module resolution this project does not use). */
export interface QuicClientLibrary {
  QUICClient: any;
  events: Record<string, { name: string }>;
  CryptoError: Record<string, number>;
  Logger: any;
  LogLevel: Record<string, number>;
  /** Thrown when this side's TLS check of the server's certificate fails. */
  LocalTlsError: new (...args: any[]) => Error;
}

let loaded: Promise<QuicClientLibrary> | undefined;

export function loadQuic(): Promise<QuicClientLibrary> {
  loaded ??= load();
  return loaded;
}

async function load(): Promise<QuicClientLibrary> {
  const quicPackage = createRequire(__filename).resolve('@matrixai/quic/package.json');
  const loggerPackage = createRequire(quicPackage).resolve('@matrixai/logger/package.json');
  const quic = await dynamicImport(pathToFileURL(join(quicPackage, '..', 'dist', 'index.js')).href);
  const logger = await dynamicImport(pathToFileURL(join(loggerPackage, '..', 'dist', 'index.js')).href);
  tuneCongestionControl(quic.native.quiche);
  return { QUICClient: quic.QUICClient, events: quic.events, CryptoError: quic.native.CryptoError, Logger: logger.default, LogLevel: logger.LogLevel, LocalTlsError: quic.errors.ErrorQUICConnectionLocalTLS };
}

/**
 * quiche's CUBIC with HyStart leaves slow start early on small-RTT paths and roughly halves
 * throughput; @matrixai/quic does not expose the choice, so every configuration it builds gets
 * Reno without HyStart (its last setter, setApplicationProtos, is the hook).
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
