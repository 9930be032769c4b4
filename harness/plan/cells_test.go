package plan

import (
	"slices"
	"testing"

	"github.com/webbench/webbench/harness/cpuset"
	"github.com/webbench/webbench/harness/matrix"
)

// Count is how many cells Cells lists, for any selection.
func TestCountIsCells(t *testing.T) {
	m := open(t, mixed, "")
	for sel, want := range map[string]int{"": 8, "t": 2, "t,u": 4, "*/s": 8, "nothing": 0} {
		s, err := matrix.ParseSelector(sel)
		if err != nil {
			t.Fatal(err)
		}
		if n, cells := Count(m, s), Cells(m, s, cpuset.Range(0, 2)); n != int64(want) || len(cells) != want {
			t.Errorf("--only %q: count %d, %d cells, want %d", sel, n, len(cells), want)
		}
	}
}

// What the profile's only: leaves out and what --only leaves out are one
// line each, and name no selected target.
func TestLeftOut(t *testing.T) {
	m := open(t, mixed, "tonly")
	if got := LeftOut(m, nil, cpuset.Range(0, 2)); !slices.Equal(got, []string{"left out by profile tonly's only: 2 target(s): net, py"}) {
		t.Errorf("profile alone: %q", got)
	}
	got := LeftOut(m, matrix.Selector{"u"}, cpuset.Range(0, 2))
	want := []string{"left out by profile tonly's only: 2 target(s): net, py", "left out by --only: 1 target(s): t"}
	if !slices.Equal(got, want) {
		t.Errorf("profile and --only u: %q, want %q", got, want)
	}
	if got := LeftOut(open(t, mixed, ""), nil, cpuset.Range(0, 2)); len(got) != 0 {
		t.Errorf("every cell selected: %q, want nothing", got)
	}
}

// The targets left out are named in one short line: a first word shared
// by three or more of them, and by no target kept, is one glob.
func TestCompactNames(t *testing.T) {
	all := []string{"go-nethttp", "go-fasthttp", "node-http", "fastcgi-go", "fastcgi-node", "fastcgi-php", "db-go", "db-node", "db-x", "db-y", "aspnetcore"}
	left := []string{"go-fasthttp", "node-http", "fastcgi-go", "fastcgi-node", "fastcgi-php", "db-go", "db-node", "db-x", "aspnetcore"}
	want := "go-fasthttp, node-http, fastcgi-* (3), db-go, db-node, db-x, aspnetcore"
	if got := compactNames(left, all); got != want {
		t.Errorf("compactNames = %q, want %q", got, want)
	}
}
