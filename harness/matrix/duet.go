package matrix

import (
	"fmt"
	"slices"

	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/cpuset"
)

// Seat is where one side of a duet runs: its target's cores and its load
// generator's.
type Seat struct{ Target, Loadgen cpuset.Set }

// DuetSeats places the two sides of a duet of cells like c on usable: each
// target on c.CPUs cores of its own and each generator on lg more of its
// own when there are enough (apart), else on its target's (together);
// unpinned cells stay unpinned. how says so; ok is false when the two
// targets do not fit, or c's target has services on cores of their own.
func DuetSeats(usable cpuset.Set, c Cell, lg int) (s [2]Seat, how string, ok bool) {
	k := c.CPUs
	switch {
	case c.Pinning == cellid.PinNone:
		return [2]Seat{{usable, usable}, {usable, usable}}, "neither side pinned, both on every core", true
	case len(c.Own) > 0 || 2*k > len(usable):
		return s, "", false
	case c.Pinning != cellid.PinTogether && 2*(k+lg) <= len(usable):
		for i := range s {
			at := i * (k + lg)
			s[i] = Seat{slices.Clone(usable[at : at+k]), slices.Clone(usable[at+k : at+k+lg])}
		}
		return s, fmt.Sprintf("each side's target on %d core(s) and its load generator on %d of its own (apart)", k, lg), true
	}
	for i := range s {
		s[i] = Seat{slices.Clone(usable[i*k : (i+1)*k]), slices.Clone(usable[i*k : (i+1)*k])}
	}
	return s, fmt.Sprintf("each side's target on %d core(s) with its load generator beside it (together)", k), true
}
