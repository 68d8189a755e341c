import { Flags } from '@oclif/core';
import { SvcCommand } from '../base-command';
import { serveMcp } from '../mcp/mcp-server';
import { SvcClient } from '../sdk/svc-client';

export default class Mcp extends SvcCommand<typeof Mcp> {
  static override summary = 'Serve the svc tools to an AI agent over the Model Context Protocol (stdio).';
  static override description = `An MCP client starts this command and speaks MCP over its stdin and stdout; diagnostics go to stderr. It offers every tool of the specification, with the same parameters and results as the matching svc commands, and acts as the user of "svc login" on this machine. The server records what the agent does in each device's audit log, marked "(via MCP)".

Command output (device_exec, docker_exec) reaches the agent without terminal escape sequences and cut at 100 KB per field. Forward sessions live as long as this process. device_deploy reads its file on this machine. --read-only offers only the tools that change nothing.

Client configuration: {"mcpServers": {"svc": {"command": "svc", "args": ["mcp"]}}}`;
  static override examples = ['<%= config.bin %> mcp', '<%= config.bin %> mcp --read-only'];
  // stdout carries the MCP protocol and nothing else.
  static override enableJsonFlag = false;
  static override flags = {
    'read-only': Flags.boolean({ description: 'offer only the tools that change nothing (listings, status, audit logs, directory listings, deployments and their status)' }),
  };

  async run(): Promise<void> {
    const client = new SvcClient({ settings: this.settings, viaMcp: true, userAgent: this.config.userAgent });
    try {
      await serveMcp({
        client,
        readOnly: this.flags['read-only'],
        version: this.config.version,
        input: process.stdin,
        output: process.stdout,
        log: (line) => process.stderr.write(`${line}\n`),
      });
    } finally {
      await client.close();
    }
  }
}
