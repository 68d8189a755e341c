import { loadSqliteDriver } from './sqlite-driver';

describe('loadSqliteDriver', () => {
  it('takes better-sqlite3 13 (Node-API) on Node 22 and later', () => {
    expect(loadSqliteDriver('22.0.0')).toBe(require('better-sqlite3'));
    expect(loadSqliteDriver('24.21.0')).toBe(require('better-sqlite3'));
  });

  it('takes the 12.x alias on Node 20, where 13 crashes opening a database', () => {
    expect(loadSqliteDriver('20.20.2')).toBe(require('better-sqlite3-node20'));
    expect(require('better-sqlite3-node20/package.json').version).toMatch(/^12\./);
  });

  it('gives the running Node a driver that opens a database and runs many short-lived statements', () => {
    const Sqlite = loadSqliteDriver();
    const db = new Sqlite(':memory:');
    db.exec('create table t (x integer)');
    for (let i = 0; i < 2_000; i++) db.prepare(`insert into t values (${i})`).run();
    expect(db.prepare('select count(*) as n from t').get()).toEqual({ n: 2_000 });
    db.close();
  });
});
