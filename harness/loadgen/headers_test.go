package loadgen

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// A scenario's request headers go on every generator's command line that
// can send them, before the URL; openloop, which cannot, skips the cell.
func TestScenarioHeaders(t *testing.T) {
	s := Spec{URL: "http://t/json", Connections: 8, Duration: time.Second, Timeout: time.Second, Requests: 0,
		Headers: []string{"Accept-Encoding: gzip"}}
	for _, name := range []string{"bombardier", "wrk", "h2load", "ab"} {
		spec := s
		if name == "ab" {
			spec.Requests, spec.Duration = 100, 0
		}
		args := Tools[name].Command(spec)
		i := slices.Index(args, "-H")
		if i < 0 || args[i+1] != "Accept-Encoding: gzip" || slices.Index(args, spec.URL) < i {
			t.Errorf("%s: %s, want -H 'Accept-Encoding: gzip' before the URL", name, strings.Join(args, " "))
		}
	}
	s.Rate = 100
	if why := (OpenLoop{}).Unsupported(s); !strings.Contains(why, "headers") {
		t.Errorf("openloop with headers: %q, want it skipped naming headers", why)
	}
}
