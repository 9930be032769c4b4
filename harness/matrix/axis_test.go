package matrix

import (
	"slices"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/axis"
	"github.com/webbench/webbench/harness/cpuset"
)

// flavour is an axis declared for these tests alone: what the matrix
// reads, expands and names of it comes from this one declaration.
func flavour(t *testing.T) axis.Axis {
	a := axis.Axis{Name: "flavour", Doc: "How the test's cells taste.", Example: "[plain, sour]", Default: "plain",
		Check: func(v string) string {
			if !slices.Contains([]string{"plain", "sour", "sweet"}, v) {
				return "want plain, sour or sweet"
			}
			return ""
		}}
	axis.Register(a)
	t.Cleanup(func() { axis.Unregister(a.Name) })
	return a
}

// ids are the ids of cells on 1 cpu under 64 connections.
func ids(cells []Cell) []string {
	var out []string
	for _, c := range cells {
		if c.CPUs == 1 && c.Connections == 64 {
			out = append(out, c.ID())
		}
	}
	return out
}

// A declared axis is a key of the file, of a profile and of --set; each
// cell takes one of its values, and its id shows the value unless it is
// the default.
func TestDeclaredAxis(t *testing.T) {
	flavour(t)
	text := strings.Replace(good, "profiles:\n", "profiles:\n  tart: {flavour: [sweet]}\n", 1)
	m, err := parse(t, "flavour: [plain, sour]\n"+text)
	if err != nil {
		t.Fatal(err)
	}
	got := ids(Expand(m, Selector{"one/plaintext"}, cpuset.Set{0, 1, 2, 3}))
	want := []string{"one/plaintext/1cpu/c64", "one/plaintext/1cpu/c64/flavour=sour"}
	if !slices.Equal(got, want) {
		t.Errorf("cells = %q, want %q", got, want)
	}
	tart, err := m.WithProfile("tart")
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(Expand(tart, Selector{"one/plaintext"}, cpuset.Set{0, 1, 2, 3})); !slices.Equal(got, []string{"one/plaintext/1cpu/c64/flavour=sweet"}) {
		t.Errorf("the profile's flavour: cells %q", got)
	}
	set, err := m.WithSettings([]Setting{{Flag: "--set flavour=[sweet,plain]", Key: "flavour", Value: "[sweet, plain]"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := set.Axes["flavour"]; !slices.Equal(got, []string{"sweet", "plain"}) {
		t.Errorf("--set flavour: %q", got)
	}
	plain, err := parse(t, good)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(Expand(plain, Selector{"one/plaintext"}, cpuset.Set{0, 1, 2, 3})); !slices.Equal(got, want[:1]) {
		t.Errorf("a matrix without the axis: cells %q, want the default's alone", got)
	}
}

// A value the axis refuses, an empty list and a repeated value are errors
// at their line; without the declaration the key is unknown.
func TestDeclaredAxisErrors(t *testing.T) {
	flavour(t)
	for text, want := range map[string]string{
		"flavour: [plain, bitter]\n": "matrix.yaml:1:18: flavour[1]: flavour: want plain, sour or sweet",
		"flavour: []\n":              "matrix.yaml:1:10: flavour: must not be empty",
		"flavour: [sour, sour]\n":    "matrix.yaml:1:17: flavour[1]: duplicate value",
		"flavour: sour\n":            "matrix.yaml:1:10: flavour: want a list",
	} {
		_, err := parse(t, text+good)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
	axis.Unregister("flavour")
	_, err := parse(t, "flavour: [sour]\n"+good)
	if err == nil || !strings.Contains(err.Error(), "flavour: unknown key") {
		t.Errorf("an undeclared axis: %v", err)
	}
}

// The reference lists a declared axis as a key of the file and of a
// profile, with its doc and example.
func TestDeclaredAxisDocumented(t *testing.T) {
	flavour(t)
	var paths []string
	for _, k := range reference(t).Keys {
		if strings.HasSuffix(k.Path, "flavour") {
			paths = append(paths, k.Path)
			if !strings.Contains(k.Doc, "How the test's cells taste.") || k.Example != "[plain, sour]" {
				t.Errorf("%s: doc %q, example %q", k.Path, k.Doc, k.Example)
			}
		}
	}
	if !slices.Equal(paths, []string{"profiles.<name>.flavour", "flavour"}) {
		t.Errorf("documented at %q", paths)
	}
}

// A selector term AXIS=VALUE picks the cells with that value of a
// declared axis, its default included; an undeclared name is no such term.
func TestSelectAxisValue(t *testing.T) {
	flavour(t)
	m, err := parse(t, "flavour: [plain, sour]\n"+good)
	if err != nil {
		t.Fatal(err)
	}
	cells := Expand(m, nil, cpuset.Set{0, 1, 2, 3})
	for term, want := range map[string][]string{
		"flavour=sour":  {"one/plaintext/1cpu/c64/flavour=sour"},
		"flavour=plain": {"one/plaintext/1cpu/c64"},
		"colour=red":    nil,
	} {
		var got []string
		for _, c := range cells {
			if (Selector{term}).Match(c) && c.CPUs == 1 && c.Connections == 64 && c.Target == "one" && c.Scenario == "plaintext" {
				got = append(got, c.ID())
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s picked %q, want %q", term, got, want)
		}
	}
}
