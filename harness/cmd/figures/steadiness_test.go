package main

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"
)

func TestAAFloor(t *testing.T) {
	// A steady core: every ratio 1, no floor.
	pr := aaFloor([]float64{100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100})
	if pr.N != 6 || pr.Ratio != 1 || pr.Floor() != 0 || !pr.HasCI {
		t.Errorf("steady: %+v floor %v, want 6 pairs, ratio 1, floor 0, an interval", pr, pr.Floor())
	}
	// A core slowing down steadily: the first window of each pair is 10%
	// faster. Alternating which side goes first puts half the pairs at
	// 1.1 and half at 1/1.1, so the trend widens the floor but does not
	// bias the ratio; without the alternation every ratio would be 1.1.
	var rates []float64
	for range 4 {
		rates = append(rates, 110, 100)
	}
	rates = append(rates, 50) // an unpaired last window is left out
	pr = aaFloor(rates)
	if pr.N != 4 || pr.HasCI {
		t.Fatalf("trend: %+v, want 4 pairs and no interval", pr)
	}
	if math.Abs(pr.Lo-1/1.1) > 1e-9 || math.Abs(pr.Hi-1.1) > 1e-9 {
		t.Errorf("trend: min…max %v…%v, want %v…1.1", pr.Lo, pr.Hi, 1/1.1)
	}
	if f := pr.Floor(); math.Abs(f-0.1) > 1e-9 {
		t.Errorf("trend: floor %v, want 0.1", f)
	}
	if pr := aaFloor([]float64{100}); pr.N != 0 {
		t.Errorf("one window: %+v, want no pair", pr)
	}
}

func TestParseRates(t *testing.T) {
	if r, err := parseRates([]byte("12.5\n30\n"), 2); err != nil || len(r) != 2 || r[0] != 12.5 || r[1] != 30 {
		t.Errorf("parseRates = %v, %v", r, err)
	}
	for _, bad := range []string{"12.5\n", "12.5\nx\n", "0\n1\n", "1\n2\n3\n"} {
		if _, err := parseRates([]byte(bad), 2); err == nil {
			t.Errorf("parseRates(%q) took it", bad)
		}
	}
}

// TestSpin runs the workload for real, briefly, and reads its output as
// steadiness does.
func TestSpin(t *testing.T) {
	var out bytes.Buffer
	if err := spin([]string{"-window", (50 * time.Millisecond).String(), "-windows", "2", "-records", "10"}, &out); err != nil {
		t.Fatal(err)
	}
	rates, err := parseRates(out.Bytes(), 2)
	if err != nil {
		t.Fatalf("%v: %q", err, out.String())
	}
	for _, r := range rates {
		if r < 20 { // a round trip of 10 records takes microseconds, not 50 ms
			t.Errorf("rate %v round trips/s: the loop did not run", r)
		}
	}
	if err := spin([]string{"-records", "x"}, &out); err == nil || !strings.Contains(err.Error(), "records") {
		t.Errorf("spin -records x: %v", err)
	}
}
