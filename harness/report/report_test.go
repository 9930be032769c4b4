package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/results"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; got:\n%s", name, got)
	}
}

func TestMarkdownGolden(t *testing.T) {
	run, err := results.Read("testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := Markdown(&a, run); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&b, run); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two renderings of the same run differ")
	}
	golden(t, "run.md", a.Bytes())
}

func TestSig(t *testing.T) {
	for x, want := range map[float64]string{
		123456: "123,000", 1234567: "1,230,000", 99.95: "100", 0.9996: "1.00", 12.34: "12.3", 1.23456: "1.23",
		0.0123456: "0.0123", 0: "0", 999: "999", 1000: "1,000", 45678.9: "45,700", -2500: "-2,500",
	} {
		if got := Sig(x); got != want {
			t.Errorf("Sig(%v) = %q, want %q", x, got, want)
		}
	}
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
		golden(t, "charts/"+c.File, c.SVG)
	}
	want := "rps-plaintext.svg latency-plaintext.svg rps-records.svg rps-vs-param-records.svg latency-records.svg"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("charts = %s, want %s", got, want)
	}
}
