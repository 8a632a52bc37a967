package chrome

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestMetadataEvents: the events are the Chrome format's metadata events,
// as a JSON reader sees them, byte for byte what the writers wrote before
// they shared them.
func TestMetadataEvents(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{string(AppendNameEvent(nil, "process_name", "3", 0, []byte(`"MegaKernel rank 3 device 3"`))),
			`{"name":"process_name","ph":"M","pid":3,"tid":0,"args":{"name":"MegaKernel rank 3 device 3"}}`},
		{string(AppendNameEvent([]byte("x"), "thread_name", `"host"`, 2017, []byte(`"AIV/17"`))),
			`x{"name":"thread_name","ph":"M","pid":"host","tid":2017,"args":{"name":"AIV/17"}}`},
		{string(AppendSortIndexEvent(nil, "0", 1003, -2)),
			`{"name":"thread_sort_index","ph":"M","pid":0,"tid":1003,"args":{"sort_index":-2}}`},
	} {
		assert.Equal(t, c.want, c.got)
		var v map[string]any
		assert.Falsef(t, json.Unmarshal([]byte(strings.TrimPrefix(c.got, "x")), &v) != nil || v["ph"] != "M", "%s is no metadata event", c.got)
	}
}
