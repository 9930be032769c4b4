package stats

import (
	"math"
	"strings"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// Known samples with known medians and order-statistics intervals.
func TestDescribe(t *testing.T) {
	// Six values: the 95% CI of the median spans the extremes (the smallest n
	// for which one exists; confidence 1 - 2/2^6 = 0.96875).
	s := Describe([]float64{10, 12, 11, 13, 9, 14})
	if !s.HasCI || !near(s.Median, 11.5) || s.Lo != 9 || s.Hi != 14 || !near(s.Confidence, 0.96875) {
		t.Errorf("n=6: %+v", s)
	}
	if s.Min != 9 || s.Max != 14 || s.N != 6 {
		t.Errorf("n=6 range: %+v", s)
	}
	// sample standard deviation of 9..14 is 1.8708; mean 11.5.
	if !near(math.Round(s.CV*1e4)/1e4, 0.1627) {
		t.Errorf("cv = %v", s.CV)
	}
	// Five values: too few for a 95% interval.
	s = Describe([]float64{100, 101, 99, 100, 102})
	if s.HasCI || s.Median != 100 || len(s.Warnings) == 0 || !strings.Contains(s.Warnings[0], "need >= 6 samples") {
		t.Errorf("n=5: %+v", s)
	}
	if s.Noisy(NoisyCV) {
		t.Errorf("cv %v marked noisy", s.CV)
	}
	if !Describe([]float64{100, 150, 80}).Noisy(NoisyCV) {
		t.Error("a 30% spread not marked noisy")
	}
	// A cold first trial is warned about.
	s = Describe([]float64{50, 100, 101, 99})
	if !strings.Contains(strings.Join(s.Warnings, ";"), "first trial -50% off") {
		t.Errorf("cold first trial: %v", s.Warnings)
	}
	if one := Describe([]float64{42}); one.Median != 42 || one.CV != 0 || one.HasCI {
		t.Errorf("n=1: %+v", one)
	}
}

func TestCompare(t *testing.T) {
	// Completely separated samples of 5: exact U test p = 2/C(10,5) = 0.00794.
	c := Compare([]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10})
	if !c.Significant || !c.Testable || math.Abs(c.P-0.007936507936507936) > 1e-12 {
		t.Errorf("separated: %+v", c)
	}
	// Interleaved samples do not differ.
	c = Compare([]float64{1, 3, 5, 7, 9}, []float64{2, 4, 6, 8, 10})
	if c.Significant || !c.Testable {
		t.Errorf("interleaved: %+v", c)
	}
	// Three trials each can never reach p < 0.05.
	c = Compare([]float64{1, 2, 3}, []float64{7, 8, 9})
	if c.Significant || c.Testable || !strings.Contains(c.Warning, "need >= 4 samples") {
		t.Errorf("n=3: %+v", c)
	}
}

func TestGeomean(t *testing.T) {
	if g := Geomean([]float64{1, 4, 16}); !near(g, 4) {
		t.Errorf("geomean = %v", g)
	}
	if Geomean(nil) != 0 {
		t.Error("geomean of nothing")
	}
}
