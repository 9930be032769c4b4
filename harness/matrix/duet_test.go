package matrix

import (
	"testing"

	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/cpuset"
)

// Two targets with their generators apart when the cores allow it, else
// each generator beside its target; no duet when two targets do not fit.
func TestDuetSeats(t *testing.T) {
	cell := func(cpus int, pin string) Cell {
		return Cell{Key: cellid.Key{CPUs: cpus, Pinning: pin}}
	}
	for _, tc := range []struct {
		n    int
		c    Cell
		want string // side 0's target/gen, side 1's; "" no duet
	}{
		{2, cell(1, ""), "0/0 1/1"},
		{4, cell(1, ""), "0/1 2/3"},
		{4, cell(1, cellid.PinTogether), "0/0 1/1"},
		{8, cell(2, ""), "0-1/2 3-4/5"},
		{3, cell(2, ""), ""},
		{2, cell(1, cellid.PinNone), "0-1/0-1 0-1/0-1"},
	} {
		s, _, ok := DuetSeats(cpuset.Range(0, tc.n), tc.c, 1)
		got := ""
		if ok {
			got = s[0].Target.String() + "/" + s[0].Loadgen.String() + " " + s[1].Target.String() + "/" + s[1].Loadgen.String()
		}
		if got != tc.want {
			t.Errorf("%d cores, %d-core cell pinned %q: %q, want %q", tc.n, tc.c.CPUs, tc.c.Pinning, got, tc.want)
		}
	}
}
