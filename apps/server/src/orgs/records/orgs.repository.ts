import { Injectable } from '@nestjs/common';
import { Storage } from '../../storage/storage.port';
import { ORGS, OrgRecord } from '../../storage/records';

@Injectable()
export class OrgsRepository {
  private readonly orgs;

  constructor(storage: Storage) {
    this.orgs = storage.collection(ORGS);
  }

  insert(org: OrgRecord): Promise<void> {
    return this.orgs.insert(org);
  }

  findById(id: string): Promise<OrgRecord | null> {
    return this.orgs.findOne({ id });
  }

  list(ids?: readonly string[]): Promise<OrgRecord[]> {
    const filter = ids === undefined ? {} : { id: { in: [...ids] } };
    return this.orgs.find(filter, { sort: { field: 'id', direction: 'asc' } });
  }

  delete(id: string): Promise<boolean> {
    return this.orgs.deleteOne({ id });
  }
}
