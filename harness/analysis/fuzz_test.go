package analysis

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/webbench/webbench/harness/results"
)

// Whatever results.Decode accepts, the analysis builds its model from
// without a panic.
func FuzzAnalysis(f *testing.F) {
	f.Add([]byte(`{"schema":1,"cells":[null]}`))
	f.Add([]byte(`{"schema":1,"base_images":{"x":null},"cells":[{"image":{"bases":[null]},"trials":[{"rps":-1}]}]}`))
	f.Add([]byte(`{"schema":1,"cells":[{"status":"ok","trials":[{"rps":1e308,"latency_ms":{"p99":1e300}}]}]}`))
	f.Add([]byte(`{"schema":2}`))
	committed, _ := filepath.Glob("../../results/*/results.json") // real runs seed the corpus too
	for _, p := range committed {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		run, err := results.Decode(data)
		if err != nil {
			return
		}
		for _, c := range run.Cells {
			if c == nil {
				t.Fatal("nil cell")
			}
			for _, tr := range c.Trials {
				if tr.RPS < 0 || tr.RPS != tr.RPS {
					t.Fatalf("rps %v", tr.RPS)
				}
			}
			Summarize(c.Trials, "median")
		}
		for _, b := range run.Images {
			if b == nil {
				t.Fatal("nil base image")
			}
		}
		NoiseFloors(run)
	})
}
