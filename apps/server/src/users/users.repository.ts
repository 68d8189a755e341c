import { Injectable } from '@nestjs/common';
import { Storage } from '../storage/storage.port';
import { USERS, UserRecord } from '../storage/records';

/** Who an account is bound to: a `sub` at one issuer, or nobody (both null). */
export interface SubjectBinding {
  subject: string | null;
  subjectIssuer: string | null;
}

@Injectable()
export class UsersRepository {
  private readonly users;

  constructor(storage: Storage) {
    this.users = storage.collection(USERS);
  }

  findByEmail(email: string): Promise<UserRecord | null> {
    return this.users.findOne({ id: email });
  }

  insert(user: UserRecord): Promise<void> {
    return this.users.insert(user);
  }

  update(email: string, set: Partial<UserRecord>): Promise<boolean> {
    return this.users.updateOne({ id: email }, set);
  }

  /**
   * Compare-and-set of the identity binding: writes `next` only if the account is still bound as
   * `expected` was read (null: unbound), so of two first sign-ins racing, one binds.
   */
  rebindSubject(email: string, expected: SubjectBinding, next: SubjectBinding): Promise<boolean> {
    return this.users.updateOne({ id: email, subject: expected.subject, subjectIssuer: expected.subjectIssuer }, next);
  }

  list(filter: { active?: boolean }): Promise<UserRecord[]> {
    return this.users.find(filter.active === undefined ? {} : { active: filter.active }, { sort: { field: 'id', direction: 'asc' } });
  }
}
