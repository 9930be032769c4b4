package cpuset

import (
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	for want, s := range map[string]Set{
		"0": {0}, "0-3": {0, 1, 2, 3}, "0-1,3,5-6": {0, 1, 3, 5, 6}, "": nil, "2,4": {2, 4},
	} {
		if got := s.String(); got != want {
			t.Errorf("%v.String() = %q, want %q", []int(s), got, want)
		}
	}
}

func TestAllocate(t *testing.T) {
	online := Range(0, 4)
	tg, lg, err := Allocate(online, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tg, Set{0, 1}) || !slices.Equal(lg, Set{3}) {
		t.Errorf("Allocate(4 cpus, 2, 1) = %v, %v", tg, lg)
	}
	if _, _, err := Allocate(Range(0, 2), 2, 1); err == nil {
		t.Error("Allocate(2 cpus, 2, 1) succeeded, want error")
	}
	tg, lg, err = Allocate(Set{0, 2, 4}, 1, 1)
	if err != nil || !slices.Equal(tg, Set{0}) || !slices.Equal(lg, Set{4}) {
		t.Errorf("Allocate sparse = %v, %v, %v", tg, lg, err)
	}
}

func TestParseUnionOverlaps(t *testing.T) {
	for in, want := range map[string]string{"0": "0", "0-3": "0-3", "3,0,1,2": "0-3", "0-1,3,5-6": "0-1,3,5-6", "1,1,1": "1", "": ""} {
		s, err := Parse(in)
		if err != nil || s.String() != want {
			t.Errorf("Parse(%q) = %v, %v; want %s", in, s, err, want)
		}
	}
	for _, bad := range []string{"a", "3-1", "-1", "1-x", "0-99999999"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
	if u := Union(Set{3}, Set{0, 1}, Set{1}); u.String() != "0-1,3" {
		t.Errorf("Union = %s", u)
	}
	if !Overlaps(Set{0, 1}, Set{1, 2}) || Overlaps(Set{0}, Set{1}) {
		t.Error("Overlaps")
	}
}

// Thousands of overlapping wide ranges parse in memory bounded by the
// bitmap (they once took more than 6 GB), and a core past MaxCore is refused.
func TestParseBounded(t *testing.T) {
	s := strings.Repeat("0-65536,", 3000) + "3"
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	set, err := Parse(s)
	runtime.ReadMemStats(&after)
	if err != nil || len(set) != MaxCore+1 {
		t.Fatalf("Parse: %d cores, %v", len(set), err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("Parse allocated %d MB", grew>>20)
	}
	if _, err := Parse("0-65537"); err == nil {
		t.Error("a core past MaxCore parsed")
	}
}
