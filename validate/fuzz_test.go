package validate_test

import (
	"testing"

	"pgregory.net/rapid"
)

// FuzzOverlaps runs propOverlaps under go test -fuzz.
func FuzzOverlaps(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propOverlaps)) }

// FuzzMutation runs propMutation under go test -fuzz.
func FuzzMutation(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propMutation)) }
