// Package cpuset owns the CPU sets given to targets and load generators:
// the canonical Docker string form ("0-1,3") and its parser, and the
// allocation rule
// that keeps a target's cores disjoint from its load generator's.
package cpuset

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Set is a sorted set of CPU indexes without duplicates.
type Set []int

// String renders the set in Docker's CpusetCpus form, collapsing runs.
func (s Set) String() string {
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if j > i {
			fmt.Fprintf(&b, "%d-%d", s[i], s[j])
		} else {
			fmt.Fprintf(&b, "%d", s[i])
		}
		i = j + 1
	}
	return b.String()
}

// Range returns the set {from, …, from+n-1}.
func Range(from, n int) Set {
	out := make(Set, n)
	for i := range out {
		out[i] = from + i
	}
	return out
}

// Allocate splits the online CPUs between a target and its load generator:
// the target takes the lowest-numbered cores, the load generator the highest,
// so the two never share a core. It fails when they do not both fit.
func Allocate(online Set, targetCPUs, loadgenCPUs int) (target, loadgen Set, err error) {
	if targetCPUs < 1 || loadgenCPUs < 1 {
		return nil, nil, fmt.Errorf("need at least one core each (target %d, load generator %d)", targetCPUs, loadgenCPUs)
	}
	if targetCPUs+loadgenCPUs > len(online) {
		return nil, nil, fmt.Errorf("target %d + load generator %d cores exceed the %d online CPUs of this machine",
			targetCPUs, loadgenCPUs, len(online))
	}
	target = slices.Clone(online[:targetCPUs])
	loadgen = slices.Clone(online[len(online)-loadgenCPUs:])
	return target, loadgen, nil
}

// AllocateApart allocates cores on two machines: the target the
// lowest-numbered of its machine's online cores, the load generator the
// highest of its own. Nothing is shared, so each need only fit its machine.
func AllocateApart(targetOnline, loadgenOnline Set, targetCPUs, loadgenCPUs int) (target, loadgen Set, err error) {
	if targetCPUs < 1 || loadgenCPUs < 1 {
		return nil, nil, fmt.Errorf("need at least one core each (target %d, load generator %d)", targetCPUs, loadgenCPUs)
	}
	switch {
	case targetCPUs > len(targetOnline):
		return nil, nil, fmt.Errorf("target %d cores exceed the %d usable CPUs of the target's machine", targetCPUs, len(targetOnline))
	case loadgenCPUs > len(loadgenOnline):
		return nil, nil, fmt.Errorf("load generator %d cores exceed the %d usable CPUs of its machine", loadgenCPUs, len(loadgenOnline))
	}
	return slices.Clone(targetOnline[:targetCPUs]), slices.Clone(loadgenOnline[len(loadgenOnline)-loadgenCPUs:]), nil
}

// Parse reads Docker's CpusetCpus form ("0-1,3"); "" is the empty set.
func Parse(s string) (Set, error) {
	// Cores are marked in a bitmap of MaxCore+1, so that many overlapping
	// ranges ("0-65536,0-65536,…") cost time bounded by the text, never
	// memory beyond the bitmap: repeated, they once took gigabytes.
	var seen []bool
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a || b > MaxCore {
			return nil, fmt.Errorf("cpuset %q: bad range %q (cores 0 to %d)", shorten(s), part, MaxCore)
		}
		if seen == nil {
			seen = make([]bool, MaxCore+1)
		}
		for c := a; c <= b; c++ {
			seen[c] = true
		}
	}
	var out Set
	for c, ok := range seen {
		if ok {
			out = append(out, c)
		}
	}
	return out, nil
}

// MaxCore is the highest core number a set may name.
const MaxCore = 1 << 16

func shorten(s string) string {
	if len(s) > 60 {
		return s[:57] + "…"
	}
	return s
}

// Union is the sorted set of every core in sets.
func Union(sets ...Set) Set {
	var out Set
	for _, s := range sets {
		out = append(out, s...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Overlaps reports whether a and b share a core.
func Overlaps(a, b Set) bool {
	for _, c := range a {
		if slices.Contains(b, c) {
			return true
		}
	}
	return false
}
