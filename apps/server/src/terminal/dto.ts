import { ApiProperty } from '@nestjs/swagger';

/** POST /api/tickets' answer. Its body is checked by ticketInput (ticket-input.ts), against the catalog. */
export class IssuedTicketResult {
  @ApiProperty({ description: '256 random bits, base64url; single use' }) ticket!: string;
  @ApiProperty({ description: 'ISO 8601; at most 30 s after issue' }) expires_at!: string;
  @ApiProperty({ description: 'the WebSocket URL to open from the same origin: ws(s)://<origin>/api/ws?ticket=…' }) url!: string;
}
