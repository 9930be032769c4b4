package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/internal/golden"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
)

// goldenFile compares got with testdata/name, or rewrites it with -update.
func goldenFile(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}

// markdown renders run's README.md as WriteDir does.
func markdownOf(t *testing.T, run *results.Run) []byte {
	t.Helper()
	charts, err := Charts(run)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := markdown(&b, run, charts); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestMarkdownGolden(t *testing.T) {
	run, err := results.Read("testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	a, b := markdownOf(t, run), markdownOf(t, run)
	if !bytes.Equal(a, b) {
		t.Error("two renderings of the same run differ")
	}
	goldenFile(t, "run.md", a)
}

// Charts are deterministic for the same results.json and match the golden
// SVGs in testdata/charts.
func TestChartsGolden(t *testing.T) {
	run, err := results.Read("testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	a, err := Charts(run)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Charts(run)
	var names []string
	for i, c := range a {
		names = append(names, c.File)
		if !bytes.Equal(c.SVG, b[i].SVG) {
			t.Errorf("%s: two renderings differ", c.File)
		}
		goldenFile(t, "charts/"+c.File, c.SVG)
	}
	want := "rps-plaintext.svg latency-plaintext.svg rps-records.svg rps-vs-param-records.svg latency-records.svg"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("charts = %s, want %s", got, want)
	}
}

// A run on two engines shows both machines side by side.
func TestMarkdownTwoMachines(t *testing.T) {
	run, err := results.Read("testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	run.Environment.Link = "veth | pair"
	run.Environment.Machines = []results.Machine{
		{Role: results.RoleTarget, Engine: "server", Host: "tcp://10.0.0.5:2375", Address: "10.0.0.5", CPUModel: "CPU A", OnlineCPUs: 8, Reserved: 1, Kernel: "6.1"},
		{Role: results.RoleLoadgen, Engine: "client", Host: "unix:///var/run/docker.sock", CPUModel: "CPU B", OnlineCPUs: 4, Kernel: "6.2"},
	}
	md := string(markdownOf(t, run))
	for _, want := range []string{
		"targets on engine `server`, the load generator on engine `client`",
		`the link between them: veth \| pair`,
		"| CPU         | CPU A",
		"| CPU B",
		"8 (1 reserved)",
		"| reached at  | 10.0.0.5",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("README lacks %q:\n%s", want, md[:min(len(md), 2500)])
		}
	}
	if strings.Contains(md, "- Machine: ") {
		t.Error("a run on two machines still has the one-machine line")
	}
}

// A ratio table pairs each cell with its baseline trial by trial.
func TestRelativeTable(t *testing.T) {
	run, err := results.Read("testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	run.Matrix.RelativeTo = []matrix.Relative{{Variant: "single"}, {Target: "slow"}, {Scenario: "json"}}
	md := string(markdownOf(t, run))
	for _, want := range []string{
		"## Relative to variant `single`",
		"| svc:cluster/records?n=10/1cpu/c64  | svc:single/records?n=10/1cpu/c64  | 15,000     | 9,000               | 1.67× | 1.67…1.67 (min…max) | 1     | too few pairs",
		"## Relative to target `slow`",
		"| fast/plaintext/1cpu/c64",
		"(min…max)",
		"## Relative to scenario `json`\n\nNo ok cell has an ok baseline with scenario `json`.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("README lacks %q", want)
		}
	}
	for _, tc := range []struct {
		r        results.PairedRatio
		down, up float64
		want     string
	}{
		{results.PairedRatio{N: 6, Ratio: 0.5, Lo: 0.4, Hi: 0.6, HasCI: true}, 0.1, 0.1, "-50%"},
		{results.PairedRatio{N: 6, Ratio: 0.25, Lo: 0.18, Hi: 0.32, HasCI: true}, 0.2, 0.7, "-75%"}, // up-noise does not hide a drop
		{results.PairedRatio{N: 6, Ratio: 1.4, Lo: 1.3, Hi: 1.5, HasCI: true}, 0.2, 0.7, "+40%, within noise"},
		{results.PairedRatio{N: 3, Ratio: 1.05, Lo: 1.01, Hi: 1.09}, 0.1, 0.1, "+5%, within noise"},
		{results.PairedRatio{N: 6, Ratio: 1.05, Lo: 0.9, Hi: 1.2}, 0, 0, "no difference shown"},
		{results.PairedRatio{N: 2, Ratio: 2, Lo: 1.9, Hi: 2.1}, 0, 0, "too few pairs"},
	} {
		if got := reading(tc.r, tc.down, tc.up); got != tc.want {
			t.Errorf("reading(%+v, %v, %v) = %q, want %q", tc.r, tc.down, tc.up, got, tc.want)
		}
	}
}
