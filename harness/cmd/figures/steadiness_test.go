package main

import (
	"bytes"
	"context"
	"io"
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

// TestMain lets this test binary stand in for bin/figures when steadiness
// runs itself as "spin" under taskset.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "spin" {
		if err := spin(os.Args[2:], os.Stdout); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestSteadiness runs the figure end to end, briefly: its spin processes
// under taskset on core 0, one per window and then one for all, and the
// lines it prints from their rates.
func TestSteadiness(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		how, runs string // runs: what it says as it starts its spin processes
	}{
		{nil, "each in a fresh process (taskset -c 0)", "window 6/6\n"},
		{[]string{"-reuse"}, "all in one process (taskset -c 0)", "6 windows of 20ms in one process\n"},
	} {
		var out, progress bytes.Buffer
		args := append([]string{"-window", "20ms", "-pairs", "3", "-records", "5"}, tc.args...)
		if err := steadiness(context.Background(), args, &out, &progress); err != nil {
			t.Fatalf("steadiness %v: %v", args, err)
		}
		if !strings.HasSuffix(progress.String(), tc.runs) {
			t.Errorf("steadiness %v: progress %q, want it to end %q", args, progress.String(), tc.runs)
		}
		for _, want := range []string{"6 windows of 20ms back to back, " + tc.how, "A/A floor: ±", "(3 pairs, ratio "} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("steadiness %v printed no %q:\n%s", args, want, out.String())
			}
		}
	}
	if err := steadiness(context.Background(), []string{"-pairs", "0"}, io.Discard, io.Discard); err == nil {
		t.Error("steadiness -pairs 0 took it")
	}
}

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
