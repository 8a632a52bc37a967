// Package duckdb holds the test that runs docs/cluster.md's SQL queries in
// DuckDB on an export of several ranks and compares every answer with
// analyze's figures (and, for what analyze does not report, with the
// decoded records counted here). DuckDB comes from its npm package: `npm ci`
// in this folder; .ci/run does it.
package duckdb
