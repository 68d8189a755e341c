import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { Storage } from '../storage/storage.port';
import type { AuditRecord } from '../storage/records';
import { AuditRepository } from './audit.repository';

/**
 * Writes audit entries off the request path. An entry recorded outside a transaction is queued
 * and written one turn of the event loop later, together with the others recorded meanwhile (one
 * storage transaction), so a request such as an exec does not wait for the write: the entry's
 * write overlaps the work the request waits for (the device running the command). Never lost on
 * a clean stop: `beforeApplicationShutdown` writes what is queued and every entry after it is
 * written at once. Readers call `flush()` first, so this process reads its own entries.
 *
 * An entry recorded inside a storage transaction is written in it (it commits with the change it
 * records). When a queued write fails (the store cannot answer), the entries stay queued and
 * every `write` writes through until the store answers again: a request then fails as it would
 * have without the queue, instead of going on unaudited.
 */
@Injectable()
export class AuditWriter implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Audit');
  private pending: AuditRecord[] = [];
  /** The last write started: writes run one after the other, so awaiting it awaits every earlier one. */
  private tail: Promise<void> = Promise.resolve();
  private scheduled = false;
  private writeThrough = false;
  private failing = false;

  constructor(
    private readonly storage: Storage,
    private readonly repository: AuditRepository,
  ) {}

  async write(entry: AuditRecord): Promise<void> {
    if (this.storage.inTransaction()) return this.repository.insert(entry);
    if (this.writeThrough || this.failing) {
      await this.flush();
      return this.repository.insert(entry);
    }
    this.pending.push(entry);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      // Failures are logged here and surface on the next `write` or `flush`.
      this.flush().catch((error: Error) => this.logger.error(`audit entries not written yet (${this.pending.length} queued): ${error.message}`));
    });
  }

  /**
   * Writes every entry queued so far; rejects when the store cannot take them (they stay queued).
   * Inside a transaction it does nothing: the write would wait for that transaction's own lock.
   */
  flush(): Promise<void> {
    if (this.storage.inTransaction()) return Promise.resolve();
    const write = this.tail.catch(() => undefined).then(() => this.writePending());
    this.tail = write;
    return write;
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.writeThrough = true;
    await this.flush().catch((error: Error) => this.logger.error(`audit entries not written at shutdown: ${error.message}`));
  }

  private async writePending(): Promise<void> {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    try {
      await this.storage.transaction(async () => {
        for (const entry of batch) await this.repository.insert(entry);
      });
      this.failing = false;
    } catch (error) {
      this.pending = [...batch, ...this.pending];
      this.failing = true;
      throw error;
    }
  }
}
