import type { QuinnStream } from '../../libs/common/src/quinn/binding';

/** One direction of a fake QUIC stream: bytes, FIN, RESET_STREAM, STOP_SENDING. */
export class Pipe {
  chunks: Buffer[] = [];
  finished = false;
  reset = false;
  stopped = false;
  private wake: (() => void) | undefined;
  constructor(private readonly readSize: number) {}
  notify(): void {
    this.wake?.();
    this.wake = undefined;
  }
  async read(maxLen: number): Promise<Uint8Array | null> {
    for (;;) {
      if (this.reset) throw new Error('stream reset by peer');
      if (this.chunks.length > 0) {
        const all = Buffer.concat(this.chunks);
        const size = Math.min(maxLen, this.readSize, all.length);
        this.chunks = size < all.length ? [all.subarray(size)] : [];
        return all.subarray(0, size);
      }
      if (this.finished) return null;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}

/** Two ends of a bidirectional stream; `readSize` splits what each read returns (any chunking must work). */
export function streamPair(readSize = 1 << 20): { opener: QuinnStream; acceptor: QuinnStream; toAcceptor: Pipe; toOpener: Pipe } {
  const toAcceptor = new Pipe(readSize);
  const toOpener = new Pipe(readSize);
  const end = (out: Pipe, inbound: Pipe): QuinnStream => ({
    read: (maxLen) => inbound.read(maxLen),
    write: async (data) => {
      if (out.stopped) throw new Error('stopped by peer');
      out.chunks.push(Buffer.from(data));
      out.notify();
    },
    finishWrite: async () => {
      out.finished = true;
      out.notify();
    },
    resetWrite: async () => {
      out.reset = true;
      out.notify();
    },
    stopRead: async () => {
      inbound.stopped = true;
    },
  });
  return { opener: end(toAcceptor, toOpener), acceptor: end(toOpener, toAcceptor), toAcceptor, toOpener };
}

