import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsIn, IsOptional, IsString, Length } from 'class-validator';
import type { TicketOperation } from './ticket-record';

const OPERATIONS: TicketOperation[] = ['device_shell', 'device_exec'];

/**
 * POST /api/tickets. Typed checks of the stream arguments are the runtime's own (parseShellArgs,
 * parseExecArgs, run by TicketsService), so they are only let through here.
 */
export class IssueTicketInput {
  @ApiProperty({ description: 'device id or name' }) @IsString() @Length(1, 256) device!: string;
  @ApiProperty({ enum: OPERATIONS }) @IsIn(OPERATIONS, { message: `operation must be one of ${OPERATIONS.join(', ')}` }) operation!: TicketOperation;
  @ApiPropertyOptional({ type: [String], description: 'argv (device_exec: required; device_shell: instead of the login shell)' }) @IsOptional() @Allow() command?: unknown;
  @ApiPropertyOptional({ description: 'device_exec: seconds (default 30)' }) @IsOptional() @Allow() timeout_secs?: unknown;
  @ApiPropertyOptional({ description: 'device_exec: the socket will carry STDIN frames, then STDIN_EOF' }) @IsOptional() @Allow() stdin?: unknown;
  @ApiPropertyOptional({ description: 'device_shell: initial columns (1-1000, default 80)' }) @IsOptional() @Allow() cols?: unknown;
  @ApiPropertyOptional({ description: 'device_shell: initial rows (1-1000, default 24)' }) @IsOptional() @Allow() rows?: unknown;
  @ApiPropertyOptional({ description: 'device_shell: TERM (default xterm-256color)' }) @IsOptional() @Allow() term?: unknown;
}

export class IssuedTicketResult {
  @ApiProperty({ description: '256 random bits, base64url; single use' }) ticket!: string;
  @ApiProperty({ description: 'ISO 8601; at most 30 s after issue' }) expires_at!: string;
  @ApiProperty({ description: 'the WebSocket URL to open from the same origin: ws(s)://<origin>/api/ws?ticket=…' }) url!: string;
}
