package report

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/results"
)

// manyCells is a results.json in a new folder whose cells are copies of
// testdata/run's first, each named by name(i), written and read back as
// the command reads it.
func manyCells(t *testing.T, n int, name func(i int) (target, scenario string)) (string, *results.Run) {
	t.Helper()
	run, err := results.Read("testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	first := run.Cells[0]
	run.Cells = nil
	for i := range n {
		c := *first
		c.Target, c.Scenario = name(i)
		run.Cells = append(run.Cells, &c)
	}
	dir := t.TempDir()
	if err := results.Write(dir, run); err != nil {
		t.Fatal(err)
	}
	if run, err = results.Read(dir); err != nil {
		t.Fatal(err)
	}
	return dir, run
}

// onDisk is the size of dir's README.md, and the count and bytes of its
// charts.
func onDisk(t *testing.T, dir string) (readme int64, charts int, svg int64) {
	t.Helper()
	st, err := os.Stat(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "charts", "*.svg"))
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			svg += st.Size()
		}
	}
	return st.Size(), len(files), svg
}

// A run of more cells than one render shows (without the caps, 200,000
// cells made a 61 MB README and 371 MB of SVG) renders within every cap, and its
// README says at its top what was left out, as the command's warning does.
func TestRenderCapsManyCells(t *testing.T) {
	cp := DefaultCaps
	n := 3 * cp.Cells
	// A scenario per cell: the most README and charts a cell can cost.
	dir, run := manyCells(t, n, func(i int) (string, string) { return fmt.Sprintf("t%05d", i), fmt.Sprintf("s%05d", i) })
	left, err := WriteDir(context.Background(), dir, run)
	if err != nil {
		t.Fatal(err)
	}
	readme, charts, svg := onDisk(t, dir)
	if readme > int64(cp.READMEBytes) || charts > cp.Charts || svg > int64(cp.ChartBytes) {
		t.Errorf("README %d bytes (cap %d), %d charts (cap %d) of %d bytes (cap %d)", readme, cp.READMEBytes, charts, cp.Charts, svg, cp.ChartBytes)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	top, _, _ := strings.Cut(string(md), "## ")
	for _, want := range []string{
		"**Not all of this run is shown.**",
		"2,000 of the run's 3,000 cells are left out: the tables and charts hold its first 1,000",
		fmt.Sprintf("Only %d charts are drawn", cp.Charts),
		"The page is cut at " + mib(cp.READMEBytes) + ":",
	} {
		if !strings.Contains(top, want) {
			t.Errorf("the README's top lacks %q:\n%s", want, top)
		}
	}
	if len(left) != 3 {
		t.Errorf("the command is told of %d cap(s), want 3: %q", len(left), left)
	}
	for _, l := range left {
		if !strings.Contains(top, "- "+l+"\n") {
			t.Errorf("the README's top does not say %q", l)
		}
	}
	if !strings.Contains(string(md), "| t00000 ") || strings.Contains(string(md), "t01000") {
		t.Error("the README does not show the first cells, or shows one past the cap")
	}
}

// The charts stop before the one that would pass their byte cap, the
// README links only those drawn, and it says where drawing stopped.
func TestRenderCapsChartBytes(t *testing.T) {
	run, err := results.Read("testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	all, err := Charts(run)
	if err != nil || len(all) < 3 {
		t.Fatalf("testdata/run draws %d charts (%v), want 3 or more", len(all), err)
	}
	cp := DefaultCaps
	cp.ChartBytes = len(all[0].SVG) + len(all[1].SVG) + len(all[2].SVG) - 1
	r, err := cp.render(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Charts) != 2 {
		t.Errorf("%d charts drawn within %d bytes, want the first 2", len(r.Charts), cp.ChartBytes)
	}
	if len(r.Left) != 1 || !strings.Contains(r.Left[0], "Only 2 charts are drawn") || !strings.Contains(r.Left[0], "drawing stopped in scenario `records`") {
		t.Errorf("left = %q, want the charts stopped in records", r.Left)
	}
	md := string(r.README)
	if len(r.Left) > 0 && !strings.Contains(md, "- "+r.Left[0]+"\n") {
		t.Error("the README does not say the charts were stopped")
	}
	if strings.Contains(md, "charts/"+all[2].File) {
		t.Errorf("the README links %s, which was not drawn", all[2].File)
	}
}

// cancelAfter is a context whose Err turns to Canceled at its n-th call:
// a signal arriving in the middle of a render, without a clock.
type cancelAfter struct {
	context.Context
	n int
}

func (c *cancelAfter) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

// A render cancelled between two charts (the first SIGINT/SIGTERM of
// report) stops there with the context's error, writing nothing.
func TestRenderStopsWhenCancelled(t *testing.T) {
	run, err := results.Read("testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := WriteDir(&cancelAfter{Context: context.Background(), n: 3}, dir, run); !errors.Is(err, context.Canceled) {
		t.Errorf("render cancelled after its first charts: %v, want context.Canceled", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Errorf("a cancelled render wrote %v", left)
	}
}
