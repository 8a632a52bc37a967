// Runs SQL statements given as a JSON array on standard input in one
// in-memory DuckDB and prints, as one JSON array, the rows of each (an
// array of objects; integers beyond 2^53 as strings). Used by
// duckdb_test.go.
import { DuckDBInstance } from '@duckdb/node-api';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
const out = [];
for (const sql of JSON.parse(input)) {
  const reader = await conn.runAndReadAll(sql);
  out.push(reader.getRowObjectsJson());
}
process.stdout.write(JSON.stringify(out));
