package cli

import (
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/cpuset"
	"github.com/webbench/webbench/harness/matrix"
)

// plan prints where a duet cell really runs (each side on one of the two
// cores, swapped every round), not the cores its expansion gave it alone.
func TestDuetPlace(t *testing.T) {
	c := matrix.Cell{Key: cellid.Key{CPUs: 1}, CPUSet: cpuset.Set{0}, LoadgenSet: cpuset.Set{1}}
	got := duetPlace(cpuset.Range(0, 2), c, 1)
	if !strings.Contains(got, "target cpus 0 or 1, load generator cpus 0 or 1") || !strings.Contains(got, "together") {
		t.Errorf("duet place on 2 cores: %q", got)
	}
	if got := duetPlace(cpuset.Range(0, 1), c, 1); !strings.Contains(got, "one after the other") {
		t.Errorf("on 1 core: %q, want it said that no duet fits", got)
	}
}
