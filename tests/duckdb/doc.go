// Package duckdb holds the test that runs docs/cluster.md's SQL queries in
// DuckDB on an export of several ranks and compares every answer with
// analyze's figures (and, for what analyze does not report, with the
// decoded records counted here), and the test that reads every export table
// back with four readers, parquet-go, DuckDB, hyparquet and polars, cell for
// cell. DuckDB, hyparquet and polars come from their npm packages: `npm ci`
// in this folder, and on node older than 22 polars' native build by name
// (npm skips it there: its engines say node >= 22); .ci/run does both.
package duckdb
