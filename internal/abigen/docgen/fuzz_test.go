package docgen

import (
	"testing"

	"pgregory.net/rapid"
)

// FuzzDrawing runs propDrawing under go test -fuzz.
func FuzzDrawing(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propDrawing)) }
