/**
 * A command loads only what it uses (docs/cli.md): the real `svc` binary, with a preload that
 * records every module the process loaded. `svc exec` must not load the deploy-file reader (YAML,
 * the schema compiler), the MCP server, file transfer, Node's fetch (undici), libs/common's barrel
 * nor the batch exec client (for --devices only); `svc deploy`
 * and `svc mcp` still load what they need when they run.
 * Not on useFleet: no server (an unreachable one is enough); it tests what the binary loads.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliHome, cliHome, svc } from './fixtures/svc-cli';

interface Loaded {
  files: string[];
  builtins: string[];
}

const DEPLOY_ONLY = [/node_modules\/ajv\//, /node_modules\/yaml\//, /dist\/deploy\//];
const MCP_ONLY = [/node_modules\/@modelcontextprotocol\//, /dist\/mcp\//];
const FILES_ONLY = [/dist\/sdk\/device-files\.js$/, /dist\/sdk\/files-http\.js$/];
/** libs/common's barrel (all of it) and the parts exec has no use for: svc exec imports what it uses from subpaths. */
const COMMON_UNUSED_BY_EXEC = [/libs\/common\/dist\/index\.js$/, /libs\/common\/dist\/(files|quinn)\//, /libs\/common\/dist\/deployments\/channel\.js$/];

describe('svc loads what a command needs, lazily (real binary)', () => {
  let dir: string;
  let home: CliHome;
  let preload: string;
  let record: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-lazy-'));
    record = join(dir, 'loaded.json');
    preload = join(dir, 'record-modules.js');
    writeFileSync(
      preload,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify({ files: Object.keys(require.cache), builtins: process.moduleLoadList })));\n`,
    );
    // Nothing listens on loopback port 1 (privileged: no suite can bind it): exec gets as far as
    // discovering the server, then fails cleanly.
    home = cliHome({ url: 'http://127.0.0.1:1' });
  });

  afterAll(() => {
    home?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  async function loadedBy(args: string[]): Promise<{ loaded: Loaded; code: number | null; stderr: string }> {
    rmSync(record, { force: true });
    const result = await svc(home, args, { env: { NODE_OPTIONS: `--require ${preload}` } });
    return { loaded: JSON.parse(readFileSync(record, 'utf8')) as Loaded, code: result.code, stderr: result.stderr };
  }

  const matching = (files: string[], patterns: RegExp[]) => files.filter((file) => patterns.some((pattern) => pattern.test(file.replace(/\\/g, '/'))));

  it("svc exec loads neither the deploy-file reader, the MCP server, file transfer, fetch nor libs/common's barrel", async () => {
    const { loaded, code, stderr } = await loadedBy(['exec', 'edge-1', '--', 'true']);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/Cannot reach the server/);
    expect(loaded.files.some((file) => file.includes('dist/commands/exec.js'))).toBe(true);
    expect(matching(loaded.files, [...DEPLOY_ONLY, ...MCP_ONLY, ...FILES_ONLY, ...COMMON_UNUSED_BY_EXEC])).toEqual([]);
    expect(matching(loaded.files, [/dist\/sdk\/exec-batch\.js$/])).toEqual([]);
    expect(loaded.builtins.filter((name) => name.includes('undici'))).toEqual([]);
  });

  it('svc deploy still loads the deploy-file reader when it reads a file', async () => {
    const file = join(dir, 'compose.yaml');
    writeFileSync(file, 'services:\n  web:\n    image: nginx:1.27\n');
    const { loaded } = await loadedBy(['deploy', 'edge-1', file]);
    expect(matching(loaded.files, DEPLOY_ONLY).length).toBeGreaterThan(0);
  });

  it('svc --help loads no command module besides the help', async () => {
    const { loaded, code } = await loadedBy(['--help']);
    expect(code).toBe(0);
    expect(matching(loaded.files, [...DEPLOY_ONLY, ...MCP_ONLY, ...FILES_ONLY, /dist\/sdk\//])).toEqual([]);
  });
});
