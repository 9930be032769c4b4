package results

import (
	"errors"
	"math"
	"runtime"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"
)

func encoded(t *testing.T, lo, hi int64, digits int) string {
	t.Helper()
	h := hdrhistogram.New(lo, hi, digits)
	if err := h.RecordValue(lo); err != nil {
		t.Fatal(err)
	}
	b, err := h.EncodeV2()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A few bytes declaring a wide geometry are refused from their header,
// before the counts they declare are allocated (1…MaxInt64 at 5 digits
// took 47 MB from a 60-byte string).
func TestDecodeHistogramBoundsGeometry(t *testing.T) {
	hostile := encoded(t, 1, math.MaxInt64, 5)
	if len(hostile) > 100 {
		t.Fatalf("the hostile histogram is %d bytes, not a few", len(hostile))
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := DecodeHistogram(hostile)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrHistogramGeometry) {
		t.Fatalf("1…MaxInt64 at 5 digits: err %v, want ErrHistogramGeometry", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("refusing it allocated %d bytes", n)
	}
	for _, g := range []struct {
		lo, hi int64
		digits int
	}{{1, MaxHistogramValue + 1, 3}, {1, 60_000_000, 4}} {
		if _, err := DecodeHistogram(encoded(t, g.lo, g.hi, g.digits)); !errors.Is(err, ErrHistogramGeometry) {
			t.Errorf("%d…%d at %d digits: err %v, want ErrHistogramGeometry", g.lo, g.hi, g.digits, err)
		}
	}
	// What the open-loop generator writes, and the longest timeout, decode.
	for _, hi := range []int64{60_000_000, MaxHistogramValue} {
		h, err := DecodeHistogram(encoded(t, 1, hi, 3))
		if err != nil || h.TotalCount() != 1 {
			t.Errorf("1…%d at 3 digits: %v", hi, err)
		}
	}
}

// A results.json whose histogram is out of bounds is read with the
// histogram dropped, as a damaged one is.
func TestDecodeDropsUnboundedHistogram(t *testing.T) {
	data := []byte(`{"schema":2,"cells":[{"target":"a","scenario":"s","status":"failed","trials":[{"open_loop":{"hdr_histogram":"` +
		encoded(t, 1, math.MaxInt64, 5) + `"}}]}]}`)
	run, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if h := run.Cells[0].Trials[0].OpenLoop.Histogram; h != "" {
		t.Errorf("unbounded histogram kept: %q", h)
	}
}

// A damaged histogram in results.json is dropped on reading, so nothing
// shows a merge it cannot make.
func TestDecodeDropsDamagedHistogram(t *testing.T) {
	data := []byte(`{"schema":2,"cells":[{"target":"a","scenario":"s","status":"failed","trials":[{"open_loop":{"hdr_histogram":"bm90IGEgaGlzdG9ncmFt"}}]}]}`)
	run, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if h := run.Cells[0].Trials[0].OpenLoop.Histogram; h != "" {
		t.Errorf("damaged histogram kept: %q", h)
	}
}
