package matrix

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// set is --set kv, as the command line gives it.
func set(t *testing.T, kv string) Setting {
	t.Helper()
	s, err := ParseSet(kv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Settings given on the command line apply over the profile, a later one
// winning, and are recorded as --set takes them.
func TestWithSettings(t *testing.T) {
	m, err := parse(t, good)
	if err != nil {
		t.Fatal(err)
	}
	quick, err := m.WithProfile("quick")
	if err != nil {
		t.Fatal(err)
	}
	got, err := quick.WithSettings([]Setting{
		{Flag: "--trials 5", Key: "load.trials", Value: "5"},
		{Flag: "--duration 4s", Key: "load.duration", Value: "4s"},
		{Flag: "--protocol http1,https", Key: "protocol", Value: "[http1,https]"},
		{Flag: "--rate 0,1000", Key: "rate", Value: "[0,1000]"},
		{Flag: "--connections 32", Key: "connections", Value: "[32]"},
		set(t, "load.warmup=2s"),
		set(t, "slo.p99.9=7ms"),
		set(t, "connections=[16, 128]"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if l := got.Load; l.Trials != 5 || l.Duration != 4*time.Second || l.Warmup != 2*time.Second || l.Timeout != quick.Load.Timeout {
		t.Errorf("load %+v: want the profile's, with trials 5, duration 4s, warm-up 2s", l)
	}
	if !slices.Equal(got.Protocols, []string{"http1", "https"}) || !slices.Equal(got.Rate, []int{0, 1000}) || !slices.Equal(got.Connections, []int{16, 128}) {
		t.Errorf("axes: protocol %v, rate %v, connections %v", got.Protocols, got.Rate, got.Connections)
	}
	if want := []Objective{{Percentile: "p99.9", Max: 7 * time.Millisecond}}; !reflect.DeepEqual(got.SLO, want) {
		t.Errorf("slo %+v, want %+v", got.SLO, want)
	}
	want := []string{"load.trials=5", "load.duration=4s", "protocol=[http1,https]", "rate=[0,1000]", "connections=[32]", "load.warmup=2s", "slo.p99.9=7ms", "connections=[16, 128]"}
	if got.Profile != "quick" || !slices.Equal(got.Set, want) {
		t.Errorf("profile %q, set %q; want quick and %q", got.Profile, got.Set, want)
	}
	if quick.Load.Trials != 1 || len(quick.Set) != 0 || !slices.Equal(quick.Connections, []int{64, 256}) {
		t.Errorf("the matrix settings were applied to changed: %+v", quick)
	}
	// A count in place of the duration, as a profile's load overlays.
	counted, err := m.WithSettings([]Setting{set(t, "load.requests=500")})
	if err != nil || counted.Load.Requests != 500 || counted.Load.Duration != 0 {
		t.Errorf("load.requests=500: %v, %+v", err, counted.Load)
	}
}

// A value the matrix file could not hold is refused with the file's
// message, named by the flag that gave it.
func TestWithSettingsErrors(t *testing.T) {
	m, err := parse(t, good)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		s    Setting
		want string
	}{
		{set(t, "load.trials=x"), `--set load.trials=x: load.trials: want an integer, got "x"`},
		{set(t, "load.trials=0"), `--set load.trials=0: load.trials: must be at least 1, got 0`},
		{Setting{Flag: "--trials 0", Key: "load.trials", Value: "0"}, `--trials 0: load.trials: must be at least 1, got 0`},
		{Setting{Flag: "--duration 5", Key: "load.duration", Value: "5"}, `--duration 5: load.duration: invalid duration "5"`},
		{set(t, "load.trialz=2"), `--set load.trialz=2: load.trialz: unknown key (known: aggregate, duration,`},
		{set(t, "targets.one.port=1"), `--set targets.one.port=1: targets: unknown key (known: connections, control, cpus,`},
		{set(t, "connections=[64, 0]"), `--set connections=[64, 0]: connections[1]: must be at least 1, got 0`},
		{set(t, "connections=64"), `--set connections=64: connections: want a list, got "64"`},
		{Setting{Flag: "--protocol h3", Key: "protocol", Value: "[h3]"}, `--protocol h3: protocol[0]: want "http1" or "https" or "h2" or "h2c", got "h3"`},
		{Setting{Flag: "--rate 150", Key: "rate", Value: "[150]"}, `--rate 150: rate[0]: bombardier holds a rate evenly only at multiples of 100`},
		{set(t, "connections=[64,"), `--set connections=[64,: connections: YAML syntax:`},
		{set(t, "load..trials=1"), `--set load..trials=1: load..trials: an empty key`},
		{set(t, "load={duration: 1s, requests: 5}"), `--set load={duration: 1s, requests: 5}: load.requests: set either duration or requests, not both`},
		{set(t, "load.trials="), `--set load.trials=: load.trials: want an integer, got ""`},
	} {
		_, err := m.WithSettings([]Setting{set(t, "generator=[bombardier, wrk]"), c.s})
		var es Errors
		if !errors.As(err, &es) || len(es) != 1 || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: got %v, want one error starting %q", c.s.Flag, err, c.want)
		}
	}
	// Each setting that fails is named by its own flag.
	_, err = m.WithSettings([]Setting{set(t, "cpus=[0]"), {Flag: "--trials 0", Key: "load.trials", Value: "0"}})
	if err == nil || !strings.Contains(err.Error(), "--set cpus=[0]: cpus[0]: must be at least 1") || !strings.Contains(err.Error(), "--trials 0: load.trials: must be at least 1") {
		t.Errorf("two bad settings: %v", err)
	}
	// The requests axis would silently replace a duration given.
	axis, err := parse(t, strings.Replace(good, "cpus: [1, 2]", "cpus: [1]\nrequests: [1000]", 1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := axis.WithSettings([]Setting{{Flag: "--duration 5s", Key: "load.duration", Value: "5s"}}); err == nil || !strings.Contains(err.Error(), "--duration 5s: load.duration: the requests axis [1000]") {
		t.Errorf("--duration with a requests axis: %v", err)
	}
}

// A glob starting with * is a YAML alias to a parser: --set only=* is
// taken as the string it reads as, and a * elsewhere that YAML refuses
// gets an error that says to quote it, not the bare YAML one.
func TestSetGlob(t *testing.T) {
	m, err := parse(t, good)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"*", "*/plaintext", " *,one"} {
		c, err := m.WithSettings([]Setting{set(t, "only="+v)})
		if err != nil {
			t.Errorf("only=%s: %v; want it taken as a glob", v, err)
		} else if c.ProfileOnly == nil {
			t.Errorf("only=%s: no cell selection", v)
		}
	}
	if _, err := m.WithSettings([]Setting{set(t, "connections=*")}); err == nil || !strings.Contains(err.Error(), `connections: want a list, got "*"`) {
		t.Errorf("connections=*: %v, want it a string a list is wanted for", err)
	}
	if _, err := m.WithSettings([]Setting{set(t, "only=[*/json]")}); err == nil || !strings.Contains(err.Error(), "quote a glob") {
		t.Errorf("only=[*/json]: %v, want an error saying to quote it", err)
	}
}

func TestSplitKey(t *testing.T) {
	for key, want := range map[string][]string{
		"load.trials": {"load", "trials"}, "slo.p99.9": {"slo", "p99.9"}, "slo.p99": {"slo", "p99"}, "slo.p99.99": {"slo", "p99.99"},
		"connections": {"connections"}, "targets.a.b": {"targets", "a", "b"}, "load.": {"load", ""}, "rate.from": {"rate", "from"},
	} {
		if got := splitKey(key); !slices.Equal(got, want) {
			t.Errorf("splitKey(%q) = %q, want %q", key, got, want)
		}
	}
}
