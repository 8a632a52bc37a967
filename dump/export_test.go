package dump

// SetBufferedRecords sets how many records a slot may have for its
// findings to be gathered before it is shown, and returns the old value.
func SetBufferedRecords(n int) int {
	old := bufferedRecords
	bufferedRecords = n
	return old
}
