package numfmt

import "testing"

func TestSig(t *testing.T) {
	for x, want := range map[float64]string{
		123456: "123,000", 1234567: "1,230,000", 99.95: "100", 0.9996: "1.00", 12.34: "12.3", 1.23456: "1.23",
		0.0123456: "0.0123", 0: "0", 999: "999", 1000: "1,000", 45678.9: "45,700", -2500: "-2,500",
		1e308: "1.00e+308", 9.9e9: "9,900,000,000", -1e20: "-1.00e+20", 1e-12: "1.00e-12",
	} {
		if got := Sig(x); got != want {
			t.Errorf("Sig(%v) = %q, want %q", x, got, want)
		}
	}
}

func TestCountAndPercent(t *testing.T) {
	if got := Count(10231); got != "10,231" {
		t.Errorf("Count(10231) = %q", got)
	}
	if got := Count(-1234567); got != "-1,234,567" {
		t.Errorf("Count(-1234567) = %q", got)
	}
	for f, want := range map[float64]string{0.487: "48.7%", 0.001: "0.1%", 0.5: "50%", 0.00012: "0.012%", 1: "100%", 12.5: "1,250%"} {
		if got := Percent(f); got != want {
			t.Errorf("Percent(%v) = %q, want %q", f, got, want)
		}
	}
}
