package cli

import (
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/matrix"
)

// --loadgen-engine and placement.loadgen name one generator engine or
// several: the first is the load generator's, the rest are further ones,
// a generator on the targets' engine takes its name, and the targets'
// machine needs an address once any generator is elsewhere.
func TestSeveralGeneratorEngines(t *testing.T) {
	m := &matrix.Matrix{
		Engines: map[string]matrix.EngineSpec{
			"server":  {Name: "server", Host: "ssh://bench@10.0.0.5", Address: "10.0.0.5"},
			"client1": {Name: "client1", Host: "ssh://bench@10.0.0.6", Address: "10.0.0.6"},
			"client2": {Name: "client2", Host: "ssh://bench@10.0.0.7", Address: "10.0.0.7"},
		},
		Placement: &matrix.Placement{Target: "server", Loadgens: []string{"client1", "client2"}, Link: "10 GbE"},
	}
	p, err := (&engineFlags{}).placement(m)
	if err != nil {
		t.Fatal(err)
	}
	ms := p.machines
	if ms == nil || ms.Target.Name != "server" || ms.Loadgen.Name != "client1" || len(ms.More) != 1 || ms.More[0].Name != "client2" || ms.Link != "10 GbE" {
		t.Fatalf("from the matrix: %+v", ms)
	}

	// The flag: the environment's engine and one by URL, the targets on
	// the environment's engine too.
	ef := &engineFlags{loadgen: "default, tcp://10.231.7.2:2375", address: "10.231.7.1"}
	if p, err = ef.placement(&matrix.Matrix{}); err != nil {
		t.Fatal(err)
	}
	ms = p.machines
	if ms == nil || ms.Target.Name != "default" || ms.Target.Address != "10.231.7.1" || ms.Loadgen.Name != "default" ||
		len(ms.More) != 1 || ms.More[0].Name != "loadgen2" || ms.More[0].Host != "tcp://10.231.7.2:2375" {
		t.Fatalf("from the flag: %+v", ms)
	}

	if _, err := (&engineFlags{loadgen: "default,tcp://10.231.7.2:2375"}).placement(&matrix.Matrix{}); err == nil ||
		!strings.Contains(err.Error(), "the load generator on engine loadgen2 is not on the targets' engine default (default): say where it reaches the targets' machine with --target-address") {
		t.Errorf("no address: %v", err)
	}
	for _, c := range []struct {
		flags engineFlags
		want  string
	}{
		{engineFlags{loadgen: "client1,client1"}, "--loadgen-engine: engines client1 and client1 are one engine (ssh://bench@10.0.0.6)"},
		{engineFlags{loadgen: "client1,,client2"}, `--loadgen-engine "client1,,client2": engine 2 of 3 is empty`},
		{engineFlags{loadgen: "client1,http://x"}, `--loadgen-engine: unsupported scheme "http"`},
	} {
		if _, err := c.flags.placement(m); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.flags, err, c.want)
		}
	}

	// One generator: as before, a URL named loadgen.
	if p, err = (&engineFlags{loadgen: "tcp://10.231.7.2:2375", address: "10.231.7.1"}).placement(&matrix.Matrix{}); err != nil {
		t.Fatal(err)
	}
	if ms = p.machines; ms == nil || ms.Loadgen.Name != "loadgen" || len(ms.More) != 0 {
		t.Errorf("one generator: %+v", ms)
	}
}
