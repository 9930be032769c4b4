package matrix

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A study's profiles file joins the repository's matrix: its profiles
// apply, and its mistakes are named at its own file and line.
func TestOpenWithProfiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	study := write("profiles.yaml", "profiles:\n  asrun:\n    connections: [7]\n")
	m, err := OpenWithProfiles("../../matrix.yaml", study)
	if err != nil {
		t.Fatal(err)
	}
	p, err := m.WithProfile("asrun")
	if err != nil || len(p.Connections) != 1 || p.Connections[0] != 7 || p.ProfilesFile != study {
		t.Fatalf("the profile of the profiles file: %v, %+v", err, p.Connections)
	}
	cases := map[string]struct{ text, want string }{
		"a bad value":       {"profiles:\n  asrun:\n    connections: [0]\n", "profiles.yaml:3:19: profiles.asrun.connections[0]: must be at least 1"},
		"not only profiles": {"targets: {}\nprofiles: {}\n", "profiles.yaml:1:1: targets: a profiles file holds profiles: only"},
		"a name both have":  {"profiles:\n  quick: {}\n", `profiles.yaml:2:3: profiles.quick: profile "quick" is also defined in ../../matrix.yaml`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := OpenWithProfiles("../../matrix.yaml", write("p.yaml", c.text))
			want := strings.Replace(c.want, "profiles.yaml:", filepath.Join(dir, "p.yaml")+":", 1)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("got %v, want %q", err, want)
			}
		})
	}
}
