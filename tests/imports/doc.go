// Package imports holds a test of the module's import graph: internal/
// is infrastructure (the YAML reader, the atomic writer, the schema model
// and the emitters abigen runs) below every product package, so no
// package under internal/ imports one outside it; and every JSON input
// is read through internal/jsonread (TestOneJSONReader).
package imports
