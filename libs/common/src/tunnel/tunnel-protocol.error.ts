/** A peer broke the tunnel protocol (bad hello, oversize frame, malformed JSON, timeout). */
export class TunnelProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TunnelProtocolError';
  }
}
