import type { Readable, Writable } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, CallToolResult, ErrorCode, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { DomainError, findOperation, ForbiddenError, NotFoundError } from '@svc/common';
import { OperationRunner } from '../sdk/operation-runner';
import type { SvcClient } from '../sdk/svc-client';
import { InProcessForwardSessions } from './in-process-forwards';
import { McpTool, mcpTools } from './tool-definitions';
import { checkToolInput } from './tool-input';
import { shapeResult, toolError, toolResult } from './tool-output';

export interface McpServeOptions {
  /** Built with `viaMcp: true`, so the server marks what the agent does "(via MCP)" in the audit log. */
  client: SvcClient;
  /** Offer only the tools that change nothing (catalog `readOnly`). */
  readOnly: boolean;
  version: string;
  /** The MCP client's end of the conversation: stdin and stdout. Diagnostics go to `log` (stderr). */
  input: Readable;
  output: Writable;
  log: (line: string) => void;
}

const INSTRUCTIONS = `Tools of svc, a service that manages a fleet of edge devices: list devices and their status, run commands and container CLI commands on them, copy and synchronise files, forward ports, deploy and supervise services (deployments of compose files and run-specs), share devices and manage organizations.
Parameters: device is a device name or id (devices_approve: the request_id of a pending registration; devices_list shows what you can access). [Batch] tools take device or devices (a list), not both. deployment_id, where optional, means the active deployment. "Here" and plain paths mean the machine running svc mcp (relative to its working directory); <device>:<path> is a path on that device.
Results are compact JSON. What you do is recorded in each device's audit log, marked "(via MCP)", under the user who ran "svc login".`;

const STOP_SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];

/**
 * `svc mcp`: the catalog's tools over MCP on stdio, each call run by the same
 * OperationRunner as the CLI commands. Resolves once the client is gone (stdin closed) or a stop
 * signal arrived, after every forward session of this server is closed.
 */
export async function serveMcp(options: McpServeOptions): Promise<void> {
  const { client, log } = options;
  const forwards = new InProcessForwardSessions(client, log);
  const runner = new OperationRunner(client, forwards);
  const tools = new Map(mcpTools({ readOnly: options.readOnly }).map((tool) => [tool.name as string, tool]));

  const server = new Server({ name: 'svc', version: options.version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...tools.values()].map((tool) => tool.definition) }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const tool = tools.get(request.params.name);
    if (!tool) return refusal(request.params.name, options.readOnly);
    return callTool(runner, tool, request.params.arguments, log);
  });

  let onSignal: (signal: NodeJS.Signals) => void = () => undefined;
  const stopped = new Promise<string>((resolve) => {
    options.input.once('end', () => resolve('stdin closed'));
    options.input.once('close', () => resolve('stdin closed'));
    options.output.once('error', (error) => resolve(`stdout failed: ${error.message}`));
    server.onclose = () => resolve('transport closed');
    onSignal = resolve;
    for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  });
  const transport = new StdioServerTransport(options.input, options.output);
  // Chained before the SDK's own handler by connect(), which keeps it.
  transport.onerror = (error) => answerMalformed(error, options.output);
  await server.connect(transport);
  log(`svc mcp ${options.version}: serving ${tools.size} tools${options.readOnly ? ' (read-only)' : ''} for ${client.settings.serverUrl.origin}`);

  const reason = await stopped;
  log(`svc mcp: stopping (${reason})`);
  for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
  await forwards.close();
  await server.close();
  // A signal leaves stdin open; nothing reads it any more, and it must not keep the process alive.
  options.input.destroy();
}

/**
 * The SDK's stdio transport reports a line it cannot read to `onerror` and drops it; JSON-RPC 2.0
 * wants an answer with id null: -32700 for a line that is not JSON, -32600 for JSON that is no
 * JSON-RPC message (`[]` too: MCP has no batches). Other transport errors are not the client's
 * message and get no answer. Written as the transport writes (one JSON line), since its `send`
 * does not take an id of null.
 */
function answerMalformed(error: Error, output: Writable): void {
  const code = error instanceof SyntaxError ? ErrorCode.ParseError : error.name === 'ZodError' ? ErrorCode.InvalidRequest : undefined;
  if (code === undefined) return;
  const message = code === ErrorCode.ParseError ? 'Parse error: the line is not JSON' : 'Invalid Request: not a JSON-RPC 2.0 request, notification or response';
  output.write(`${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } })}\n`);
}

async function callTool(runner: OperationRunner, tool: McpTool, args: unknown, log: (line: string) => void): Promise<CallToolResult> {
  try {
    const input = checkToolInput(tool.contract, args);
    const result = await runner.run(tool.name, input);
    return toolResult(shapeResult(tool.name, result));
  } catch (error) {
    if (!(error instanceof DomainError)) log(`svc mcp: ${tool.name} failed unexpectedly: ${(error as Error)?.stack ?? String(error)}`);
    return toolError(error);
  }
}

/** A call to a tool this server does not list, answered as a tool error that says why (as the SDK's McpServer does). */
function refusal(name: string, readOnly: boolean): CallToolResult {
  if (findOperation(name) && readOnly) return toolError(new ForbiddenError(`${name} changes things, and this svc mcp runs with --read-only`));
  return toolError(new NotFoundError(`Unknown tool ${name}; tools/list shows the tools of this server`));
}
