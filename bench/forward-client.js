/**
 * The client side of a forward in its own process, as `svc forward` runs it: DeviceStreams (one
 * HTTP/2 connection to UNIFIED_PORT) + LocalForwarder on an ephemeral loopback port, which it
 * sends to the parent over IPC. Runs until killed.
 */
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const { DeviceStreams } = require(join(ROOT, 'apps/cli/dist/sdk/device-streams'));
const { LocalForwarder } = require(join(ROOT, 'apps/cli/dist/sdk/local-forwarder'));

const { port, caFile, token, device, targetPort } = JSON.parse(process.argv[2]);
const streams = new DeviceStreams({ host: '127.0.0.1', port, trust: { ca: readFileSync(caFile) }, token: () => token });
const mapping = { local: { kind: 'tcp', port: 0 }, remote: { kind: 'tcp', host: '127.0.0.1', port: targetPort } };
new LocalForwarder(streams, device, mapping).listen().then((local) => process.send(local));
process.on('SIGTERM', () => process.exit(0)); // lets --cpu-prof write its profile
