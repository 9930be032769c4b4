package axis

import (
	"strings"
	"testing"
)

func ok(string) string { return "" }

func TestRegister(t *testing.T) {
	t.Cleanup(func() { Unregister("zeta"); Unregister("alpha") })
	Register(Axis{Name: "zeta", Doc: "d", Example: "[a]", Check: ok})
	Register(Axis{Name: "alpha", Doc: "d", Example: "[a]", Default: "x", Check: ok})
	var names []string
	for _, a := range All() {
		if a.Name == "alpha" || a.Name == "zeta" || a.Name == Revision.Name {
			names = append(names, a.Name)
		}
	}
	if got := strings.Join(names, ","); got != "alpha,revision,zeta" {
		t.Errorf("All = %s, want alpha,revision,zeta: by name, not by declaration", got)
	}
	if a, found := Lookup("alpha"); !found || a.Default != "x" {
		t.Errorf("Lookup(alpha) = %+v, %v", a, found)
	}
	if _, found := Lookup("beta"); found {
		t.Errorf("Lookup found an undeclared axis")
	}
	for name, a := range map[string]Axis{
		"twice":       {Name: "zeta", Doc: "d", Example: "[a]", Check: ok},
		"upper case":  {Name: "Zeta", Doc: "d", Example: "[a]", Check: ok},
		"no check":    {Name: "eta", Doc: "d", Example: "[a]"},
		"no doc":      {Name: "eta", Example: "[a]", Check: ok},
		"bad default": {Name: "eta", Doc: "d", Example: "[a]", Default: "x", Check: func(v string) string { return "no" }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: registered", name)
					Unregister(a.Name)
				}
			}()
			Register(a)
		}()
	}
}

func TestRevisionNames(t *testing.T) {
	for v, bad := range map[string]bool{"HEAD~1": false, "origin/main": false, "WORKTREE": false, "0123abc": false, "--output=x": true, "a b": true} {
		if got := Revision.Check(v) != ""; got != bad {
			t.Errorf("Check(%q) refused = %v, want %v", v, got, bad)
		}
	}
}
