import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

type Payload = Record<string, unknown> & { grantId?: string; userCode?: string; uid?: string; consumed?: number };

interface Stored {
  payload: Payload;
  /** Unix milliseconds; absent when oidc-provider gave no lifetime. */
  expiresAt?: number;
}

/** What oidc-provider calls on its storage adapter (one instance per model name). */
export interface OidcAdapter {
  upsert(id: string, payload: Payload, expiresIn?: number): Promise<void>;
  find(id: string): Promise<Payload | undefined>;
  findByUserCode(userCode: string): Promise<Payload | undefined>;
  findByUid(uid: string): Promise<Payload | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

/**
 * The development provider's state (grants, refresh tokens, sessions, device codes) in one JSON
 * file, so that a restarted staging server still honours the CLI's refresh token. Every change
 * rewrites the file atomically (temp file + rename, mode 0600: it holds refresh tokens); expired
 * entries are dropped on load and on every write. Fine for one developer's logins, not for load.
 */
export class FileOidcStore {
  private readonly entries: Map<string, Stored>;

  constructor(private readonly file: string) {
    this.entries = new Map(existsSync(file) ? Object.entries(JSON.parse(readFileSync(file, 'utf8')) as Record<string, Stored>) : []);
    this.prune();
  }

  /** The adapter oidc-provider asks for by model name (`adapter: (name) => store.adapter(name)`). */
  adapter(model: string): OidcAdapter {
    const key = (id: string) => `${model}:${id}`;
    const findWhere = (test: (payload: Payload) => boolean) => {
      for (const [k, stored] of this.entries) if (k.startsWith(`${model}:`) && this.live(stored) && test(stored.payload)) return stored.payload;
      return undefined;
    };
    return {
      upsert: async (id, payload, expiresIn) => {
        this.entries.set(key(id), { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : undefined });
        this.save();
      },
      find: async (id) => {
        const stored = this.entries.get(key(id));
        return stored && this.live(stored) ? stored.payload : undefined;
      },
      findByUserCode: async (userCode) => findWhere((payload) => payload.userCode === userCode),
      findByUid: async (uid) => findWhere((payload) => payload.uid === uid),
      consume: async (id) => {
        const stored = this.entries.get(key(id));
        if (!stored) return;
        stored.payload.consumed = Math.floor(Date.now() / 1000);
        this.save();
      },
      destroy: async (id) => {
        if (this.entries.delete(key(id))) this.save();
      },
      revokeByGrantId: async (grantId) => {
        for (const [k, stored] of this.entries) if (stored.payload.grantId === grantId) this.entries.delete(k);
        this.save();
      },
    };
  }

  private live(stored: Stored): boolean {
    return stored.expiresAt === undefined || stored.expiresAt > Date.now();
  }

  private prune(): void {
    for (const [k, stored] of this.entries) if (!this.live(stored)) this.entries.delete(k);
  }

  private save(): void {
    this.prune();
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const temporary = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(Object.fromEntries(this.entries)), { mode: 0o600 });
    renameSync(temporary, this.file);
  }
}
