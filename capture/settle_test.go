package capture_test

import (
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/capture/capturetest"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// idleAIC0 is a capture of capacities 16/32 whose AIC/0 never ran: its
// header is all zero, so it states AIC capacity 0.
func idleAIC0(t *testing.T) *capture.Capture {
	b := capturetest.New(abi.MinCubeSlots, 16, 32)
	b.Enter(abi.CoreTypeAIV, 0, 800)
	b.Enter(abi.CoreTypeAIC, 3, 1000).
		Span(abi.CoreTypeAIC, 3, 1100, 1200, abi.TaskTypeBase+uint32(abi.TaskTypeMatMul), 1)
	c, err := capture.FromBytes("idle.bin", b.Bytes())
	require.NoError(t, err)
	return c
}

func TestSettle(t *testing.T) {
	c := idleAIC0(t)
	plan := abi.Capacities{AIC: 16, AIV: 32}
	host := abi.Capacities{AIC: 48, AIV: 64}

	s := c.Settle(capture.LayoutOptions{})
	assert.Equal(t, capture.Settled{Options: capture.LayoutOptions{CubeSlots: abi.MinCubeSlots}, Source: capture.FromHeaders, Idle: "AIC/0"}, s)
	assert.Contains(t, s.IdleHint(), "AIC/0 is unused")

	s = c.Settle(capture.LayoutOptions{CubeSlots: 30, Fallback: &plan})
	assert.Equal(t, capture.FromPlan, s.Source)
	assert.Equal(t, &plan, s.Options.Capacities)
	assert.EqualValues(t, 30, s.Options.CubeSlots)
	assert.Empty(t, s.IdleHint(), "the plan stands in for the unused header")

	s = c.Settle(capture.LayoutOptions{Capacities: &host, Fallback: &plan})
	assert.Equal(t, capture.FromHost, s.Source, "given capacities win over the fallback")
	assert.Equal(t, &host, s.Options.Capacities)

	// Live first headers: the fallback is not used.
	live, err := capture.FromBytes("small.bin", small().Bytes())
	require.NoError(t, err)
	s = live.Settle(capture.LayoutOptions{Fallback: &host})
	assert.Equal(t, capture.Settled{Options: capture.LayoutOptions{CubeSlots: abi.MinCubeSlots, Fallback: &host}, Source: capture.FromHeaders}, s)
}

// ResolveLayout applies the fallback, and the problems a layout read from
// an unused header causes say so.
func TestResolveLayoutFallback(t *testing.T) {
	c := idleAIC0(t)
	l, err := c.ResolveLayout(capture.LayoutOptions{})
	require.NoError(t, err, "AIC capacity 0 is a layout; the scan then finds slots where it does not expect them")
	_, err = c.Scan(l, capture.ScanOptions{})
	p := problem(t, err)
	assert.Equal(t, capture.CodeSlotIdentity, p.Code, "AIC/3's header sits where the guess puts AIV/3")
	assert.Empty(t, p.Hint, "Scan knows nothing of how the layout was found")
	s, _, err := c.Resolve(capture.LayoutOptions{})
	require.NoError(t, err)
	assert.Equal(t, "AIC/0", s.Idle, "Resolve says how it found the layout")
	s.Explain(p)
	assert.Contains(t, p.Error(), "; hint: AIC/0 is unused")

	plan := abi.Capacities{AIC: 16, AIV: 32}
	l, err = c.ResolveLayout(capture.LayoutOptions{Fallback: &plan})
	require.NoError(t, err)
	assert.Equal(t, plan, l.Capacities)
	sum, err := c.Scan(l, capture.ScanOptions{})
	require.NoError(t, err)
	assert.EqualValues(t, 1, sum.Records)

	// A fallback too large for the buffer is a truncation, without the
	// hint: the capacities came from the plan, not from the header.
	huge := abi.Capacities{AIC: 1 << 20, AIV: 32}
	_, err = c.ResolveLayout(capture.LayoutOptions{Fallback: &huge})
	p = problem(t, err)
	assert.Equal(t, capture.CodeTruncated, p.Code)
	assert.Empty(t, p.Hint)
}

// A layout problem ResolveLayout finds in a header it read because AIC/0
// is unused carries the hint.
func TestResolveLayoutHint(t *testing.T) {
	buf := make([]byte, 3*abi.MinCubeSlots*abi.CoreHeaderSize)
	// With AIC/0 unused the AIC capacity reads 0, which puts AIV/0 right
	// after the AIC headers; a header there with an unaligned capacity is
	// a bad-capacity problem caused by the guess.
	h := abi.CoreHeader{CoreType: abi.CoreTypeAIV, RecordCapacity: 17}
	h.Append(buf[abi.MinCubeSlots*abi.CoreHeaderSize:][:0])
	c, err := capture.FromBytes("guess.bin", buf)
	require.NoError(t, err)
	_, err = c.ResolveLayout(capture.LayoutOptions{})
	p := problem(t, err)
	assert.Equal(t, capture.CodeBadCapacity, p.Code)
	assert.Contains(t, p.Hint, "AIC/0 is unused")
}
