//go:build !unix

package outfile

// ownerToken is "u": nothing here tells one run of a pid from another.
func ownerToken(int) string { return "u" }

// ownerGone is false: without a way to ask whether a process lives, a
// temporary file is never taken for stale.
func ownerGone(int, string) bool { return false }
