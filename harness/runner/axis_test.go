package runner

import (
	"slices"
	"testing"

	"github.com/webbench/webbench/harness/axis"
)

// A declared axis's values reach results.json: each cell's (its id
// naming the value unless it is the default) and the run's settings.
func TestDeclaredAxisRecorded(t *testing.T) {
	axis.Register(axis.Axis{Name: "flavour", Doc: "d", Example: "[sour]", Default: "plain", Check: func(string) string { return "" }})
	t.Cleanup(func() { axis.Unregister("flavour") })
	m := testMatrix(t, "flavour: [plain, sour]\n"+twoTargets, "one", "a", "b")
	res, err, _ := run(t, newFake(), m, Options{Only: "a"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range res.Cells {
		ids = append(ids, c.ID())
	}
	if want := []string{"a/plaintext/1cpu/c8", "a/plaintext/1cpu/c8/flavour=sour"}; !slices.Equal(ids, want) {
		t.Errorf("cells %q, want %q", ids, want)
	}
	if got := res.Matrix.Axes["flavour"]; !slices.Equal(got, []string{"plain", "sour"}) {
		t.Errorf("settings' axes: %q", got)
	}
}
