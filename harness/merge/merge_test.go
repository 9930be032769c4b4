package merge

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// record makes a histogram (µs, 1 µs to 60 s, 3 digits) of samples.
func record(t *testing.T, samples []int64) *hdrhistogram.Histogram {
	t.Helper()
	h := hdrhistogram.New(1, 60_000_000, 3)
	for _, v := range samples {
		if err := h.RecordValue(v); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// exact is the sample at quantile q of sorted, ranked as HDR ranks it:
// the round(q% of n)-th smallest.
func exact(sorted []int64, q float64) int64 {
	rank := int(q/100*float64(len(sorted)) + 0.5)
	return sorted[min(max(rank, 1), len(sorted))-1]
}

var t0 = time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)

func window(from, to float64) Window {
	return Window{t0.Add(time.Duration(from * float64(time.Second))), t0.Add(time.Duration(to * float64(time.Second)))}
}

// Two generators with different distributions — one fast and busy, one
// slow with a long tail — merge into the distribution of all their
// requests: every percentile from p50 to p99.99 is the pooled samples'
// (to the histogram's resolution), and the merged histogram is the one the
// pooled samples make. The mean of the two p99s is not.
func TestMergeHistograms(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 4))
	var a, b []int64
	for range 40_000 {
		a = append(a, 800+rng.Int64N(1_200)) // 0.8–2 ms
	}
	for range 9_000 {
		b = append(b, 1_500+int64(rng.ExpFloat64()*6_000)) // 1.5 ms and a tail
	}
	parts := []Part{
		{Generator: "a", Window: window(0, 10), Good: int64(len(a)), Latency: record(t, a)},
		{Generator: "b", Window: window(0, 10), Good: int64(len(b)), Latency: record(t, b)},
	}
	m, err := Trial(parts)
	if err != nil {
		t.Fatal(err)
	}
	pooled := slices.Sorted(slices.Values(append(slices.Clone(a), b...)))
	if m.Latency == nil || m.Latency.Count != int64(len(pooled)) || len(m.Latency.Percentiles) != len(Quantiles) {
		t.Fatalf("latency %+v, want %d requests at %v", m.Latency, len(pooled), Quantiles)
	}
	for _, p := range m.Latency.Percentiles {
		if want := exact(pooled, p.Q); !m.Histogram.ValuesAreEquivalent(p.Value, want) {
			t.Errorf("p%v = %d, pooled samples say %d", p.Q, p.Value, want)
		}
	}
	if !m.Histogram.Equals(record(t, pooled)) {
		t.Error("the merged histogram is not the pooled samples' histogram")
	}
	if m.Latency.Max != m.Histogram.Max() || m.Latency.Max < pooled[len(pooled)-1] {
		t.Errorf("max %d, pooled max %d", m.Latency.Max, pooled[len(pooled)-1])
	}
	// What a merge by averaging would have said is another figure.
	avg := (parts[0].Latency.ValueAtQuantile(99) + parts[1].Latency.ValueAtQuantile(99)) / 2
	if m.Histogram.ValuesAreEquivalent(avg, exact(pooled, 99)) {
		t.Fatalf("the samples do not tell a merge from an average (p99 %d either way)", avg)
	}
	// Merging leaves the parts as they were.
	if parts[0].Latency.TotalCount() != int64(len(a)) || parts[1].Latency.TotalCount() != int64(len(b)) {
		t.Error("a part's histogram changed")
	}
}

// Histograms of different resolutions merge into one as fine as the
// finest and as wide as the widest: nothing is dropped.
func TestMergeGeometries(t *testing.T) {
	coarse := hdrhistogram.New(1, 1_000_000, 2)
	fine := hdrhistogram.New(1, 60_000_000, 4)
	for v := int64(1); v <= 1000; v++ {
		coarse.RecordValue(v * 900)
		fine.RecordValue(v * 50_000)
	}
	m, err := Trial([]Part{{Generator: "a", Window: window(0, 1), Latency: coarse}, {Generator: "b", Window: window(0, 1), Latency: fine}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Histogram.TotalCount() != 2000 || m.Histogram.SignificantFigures() != 4 || m.Latency.Max < 49_000_000 {
		t.Errorf("merged %d values, %d digits, max %d", m.Histogram.TotalCount(), m.Histogram.SignificantFigures(), m.Latency.Max)
	}
}

// A generator whose tool cannot export its distribution leaves the merged
// percentiles absent, naming it, while its counts still add up.
func TestMergeWithoutDistribution(t *testing.T) {
	m, err := Trial([]Part{
		{Generator: "a", Window: window(0, 10), Good: 900, Bytes: 9000, Errors: map[string]int64{"timeout": 2, "5xx": 1},
			Latency: record(t, []int64{1000, 2000})},
		{Generator: "b", Window: window(0, 10), Good: 100, Bytes: 1000, Errors: map[string]int64{"timeout": 3, "connect": 4}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if m.Latency != nil || m.Histogram != nil || !slices.Equal(m.Missing, []string{"b"}) {
		t.Errorf("latency %+v, histogram %v, missing %v: want none, missing b", m.Latency, m.Histogram, m.Missing)
	}
	if m.Good != 1000 || m.Bytes != 10000 || m.Generators != 2 ||
		m.Errors["timeout"] != 5 || m.Errors["5xx"] != 1 || m.Errors["connect"] != 4 || len(m.Errors) != 3 {
		t.Errorf("counts %+v", m)
	}
	if !slices.Equal(m.Kinds(), []string{"5xx", "connect", "timeout"}) {
		t.Errorf("kinds %v", m.Kinds())
	}
}

// Windows that overlap by 95% or more pass; under, the trial fails naming
// the generator that strayed — late to start, early to stop — and still
// gives its counts and windows for the record.
func TestOverlap(t *testing.T) {
	ok := []Part{
		{Generator: "a", Window: window(0, 100), Good: 1},
		{Generator: "b", Window: window(0.5, 100.5), Good: 1},
		{Generator: "c", Window: window(4, 100), Good: 1},
	}
	m, err := Trial(ok)
	if err != nil || m.Overlap < 0.955 || m.Overlap > 0.961 || m.Skew != 4*time.Second || m.Common != window(4, 100) {
		t.Errorf("overlap %v, skew %v, common %v, %v: want 96%%, 4s, 4–100 s, ok", m.Overlap, m.Skew, m.Common, err)
	}
	for _, c := range []struct {
		name  string
		parts []Part
		want  string
	}{
		{"late start", []Part{{Generator: "a", Window: window(0, 100)}, {Generator: "b", Window: window(6, 100)}, {Generator: "c", Window: window(0.2, 100.1)}}, "b"},
		{"early stop", []Part{{Generator: "a", Window: window(0, 100)}, {Generator: "b", Window: window(0, 100)}, {Generator: "c", Window: window(0, 50)}}, "c"},
		{"other clock", []Part{{Generator: "a", Window: window(0, 10)}, {Generator: "b", Window: window(30, 40)}, {Generator: "c", Window: window(0, 10)}}, "b"},
		{"two, the later", []Part{{Generator: "a", Window: window(0, 10)}, {Generator: "b", Window: window(1, 11)}}, "b"},
	} {
		m, err := Trial(c.parts)
		var oe *OverlapError
		if !errors.As(err, &oe) || oe.Generator != c.want || oe.Overlap >= MinOverlap || m == nil || m.Overlap != oe.Overlap {
			t.Errorf("%s: %v (merged %+v), want an overlap failure naming %s", c.name, err, m, c.want)
		}
	}
}

// The rate is counted over the common window: from per-interval counts
// exactly (to an interval at each edge); prorated from a generator's own
// window when it counted only totals, and then said to be inexact.
func TestRateOverCommonWindow(t *testing.T) {
	// a bursts in its first second, which b (starting 0.5 s late) missed
	// half of; b slows in its last second, half of it after a stopped.
	a := Part{Generator: "a", Window: window(0, 10), Good: 1400,
		Series: &Series{Step: time.Second, Counts: []int64{500, 100, 100, 100, 100, 100, 100, 100, 100, 100}}}
	b := Part{Generator: "b", Window: window(0.5, 10.5), Good: 920,
		Series: &Series{Step: time.Second, Counts: []int64{100, 100, 100, 100, 100, 100, 100, 100, 100, 20}}}
	m, err := Trial([]Part{a, b})
	if err != nil {
		t.Fatal(err)
	}
	// In 0.5–10 s: a 250 + 900, b 900 + 10.
	if want := 2060 / 9.5; !m.RateExact || !near(m.Rate, want) {
		t.Errorf("rate %v (exact %v), want %v exactly", m.Rate, m.RateExact, want)
	}
	// Summing each generator's own rate says otherwise.
	if own := 1400/10.0 + 920/10.0; near(m.Rate, own) {
		t.Fatalf("the example does not tell the common window from own windows (%v)", own)
	}
	b.Series = nil
	m, err = Trial([]Part{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if want := (1150 + 920*9.5/10) / 9.5; m.RateExact || !near(m.Rate, want) {
		t.Errorf("rate %v (exact %v), want %v prorated", m.Rate, m.RateExact, want)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestTrialRejects(t *testing.T) {
	if _, err := Trial(nil); !errors.Is(err, ErrNoParts) {
		t.Errorf("no parts: %v", err)
	}
	if _, err := Trial([]Part{{Generator: "a"}, {Generator: "a"}}); err == nil {
		t.Error("a generator given twice merged")
	}
	if _, err := Trial([]Part{{Generator: "a", Window: window(5, 1)}}); err == nil {
		t.Error("a window ending before it starts merged")
	}
}

// The remainder goes to the first generator; shares sum to the load.
func TestSplit(t *testing.T) {
	for _, c := range []struct {
		total, n int
		want     []int
	}{
		{10, 3, []int{4, 3, 3}},
		{9, 3, []int{3, 3, 3}},
		{512, 3, []int{172, 170, 170}},
		{5, 1, []int{5}},
		{2, 2, []int{1, 1}},
	} {
		got, err := Split(c.total, c.n)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("Split(%d, %d) = %v, %v; want %v", c.total, c.n, got, err, c.want)
		}
	}
	for total := 1; total <= 40; total++ {
		for n := 1; n <= total; n++ {
			s, err := Split(total, n)
			sum := 0
			for _, v := range s {
				sum += v
			}
			if err != nil || sum != total || s[0]-s[n-1] != total%n {
				t.Fatalf("Split(%d, %d) = %v, %v", total, n, s, err)
			}
		}
	}
	if _, err := Split(2, 3); !errors.Is(err, ErrShareless) {
		t.Errorf("2 connections among 3 generators: %v", err)
	}
	if _, err := Split(2, 0); !errors.Is(err, ErrNoParts) {
		t.Errorf("no generators: %v", err)
	}
}
