package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"strings"
	"time"
)

// epoch is every entry's modification time: the earliest a zip's MS-DOS
// date holds, so that two builds of one tree are byte for byte the same.
var epoch = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// entry is one file of a wheel.
type entry struct {
	name string
	data []byte
	exec bool // mode 0755 (pip installs it executable), else 0644
}

// recordHash is RECORD's hash of data: sha256= and the digest in URL-safe
// base64 without padding (the wheel spec, PEP 376/427).
func recordHash(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256=" + base64.RawURLEncoding.EncodeToString(sum[:])
}

// record is the RECORD file for entries, whose own line, recordName, has
// no hash and no size. The names are the builder's own (no comma, quote
// or newline to escape).
func record(entries []entry, recordName string) []byte {
	var b strings.Builder
	for _, e := range entries {
		fmt.Fprintf(&b, "%s,%s,%d\n", e.name, recordHash(e.data), len(e.data))
	}
	fmt.Fprintf(&b, "%s,,\n", recordName)
	return []byte(b.String())
}

// writeZip writes entries, in order, deflated, with fixed times and modes.
func writeZip(w io.Writer, entries []entry) error {
	zw := zip.NewWriter(w)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: epoch}
		if e.exec {
			h.SetMode(0o755)
		} else {
			h.SetMode(0o644)
		}
		f, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := io.Copy(f, bytes.NewReader(e.data)); err != nil {
			return err
		}
	}
	return zw.Close()
}
