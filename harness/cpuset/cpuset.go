// Package cpuset owns the CPU sets given to targets and load generators:
// the canonical Docker string form ("0-1,3"), and the allocation rule
// that keeps a target's cores disjoint from its load generator's.
package cpuset

import (
	"fmt"
	"slices"
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
