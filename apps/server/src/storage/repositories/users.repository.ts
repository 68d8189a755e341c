import { Injectable } from '@nestjs/common';
import { Storage } from '../storage.port';
import { USERS, UserRecord } from '../records';

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

  list(filter: { active?: boolean }): Promise<UserRecord[]> {
    return this.users.find(filter.active === undefined ? {} : { active: filter.active }, { sort: { field: 'id', direction: 'asc' } });
  }
}
