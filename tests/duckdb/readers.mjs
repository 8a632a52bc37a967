// Reads each Parquet file named in the JSON array on standard input with
// three readers written apart from cycleabi's writer and from each other
// (DuckDB, in C++; hyparquet, in JavaScript; polars, in Rust) and prints,
// as one JSON object keyed by file, each reader's rows, polars' column
// types and hyparquet's column statistics, every cell in one canonical
// text so that Go can compare them with parquet-go's: null is "null", an
// integer its decimal digits (64-bit ones included, unsigned read as
// unsigned), a float its shortest form, a map "{key:value,...}" in key
// order. Used by readers_test.go.
import { DuckDBInstance } from '@duckdb/node-api';
import { parquetReadObjects, parquetMetadataAsync, asyncBufferFromFile } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import pl from 'nodejs-polars';

function cell(v) {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'string') return String(v);
  if (typeof v === 'boolean') return String(v);
  // A map: hyparquet gives an object, DuckDB a value with entries, polars
  // a list of {key, value} structs.
  let entries;
  if (Array.isArray(v)) entries = v.map((e) => [e.key, e.value]);
  else if (Array.isArray(v.entries)) entries = v.entries.map((e) => [e.key, e.value]);
  else entries = Object.entries(v);
  entries.sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : String(a[0]) > String(b[0]) ? 1 : 0));
  return '{' + entries.map(([k, x]) => `${cell(k)}:${cell(x)}`).join(',') + '}';
}

// polars' rows. polars gives a UInt64 cell as a BigInt but an Int64 one as
// a number (exact only up to 2^53), so every integer column is cast to
// text in polars (its own decimal digits, never through a float); a
// number left that is an integer past 2^53 (a map's value, were it 64-bit)
// fails the run rather than compare rounded.
const integer = /^U?Int(8|16|32|64)$/;
function polarsRows(df) {
  const cols = df.columns.map((c) => (integer.test(df.schema[c].variant) ? pl.col(c).cast(pl.Utf8) : pl.col(c)));
  return rowsOf(df.select(...cols).toRecords(), (v) => {
    if (typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v)) throw new Error(`polars gave ${v} as a number`);
  });
}

const rowsOf = (objects, check = () => {}) => objects.map((o) => Object.fromEntries(Object.entries(o).map(([k, v]) => {
  check(v);
  if (Array.isArray(v)) v.forEach((e) => check(e.value));
  return [k, cell(v)];
})));

let input = '';
for await (const chunk of process.stdin) input += chunk;
const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
const out = {};
for (const f of JSON.parse(input)) {
  const duck = await conn.runAndReadAll(`SELECT * FROM read_parquet('${f.replaceAll("'", "''")}', hive_partitioning = false)`);
  const file = await asyncBufferFromFile(f);
  const meta = await parquetMetadataAsync(file);
  const polars = pl.readParquet(f, { hivePartitioning: false });
  out[f] = {
    duckdb: rowsOf(duck.getRowObjects()),
    hyparquet: rowsOf(await parquetReadObjects({ file, compressors })),
    polars: polarsRows(polars),
    // Each column's name and type as polars reads them: polars' JS API
    // offers no Parquet statistics (readParquet and scanParquet only use
    // them to skip row groups), so polars is compared by cells and types.
    polarsSchema: polars.columns.map((c) => [c, String(polars.schema[c])]),
    // [row group][column]: the chunk's path, null count and bounds as
    // hyparquet reads them (bounds "null" when the chunk has none).
    statistics: meta.row_groups.map((g) => g.columns.map((c) => ({
      path: c.meta_data.path_in_schema.join('.'),
      nulls: cell(c.meta_data.statistics?.null_count),
      min: cell(c.meta_data.statistics?.min_value),
      max: cell(c.meta_data.statistics?.max_value),
    }))),
  };
}
process.stdout.write(JSON.stringify(out));
