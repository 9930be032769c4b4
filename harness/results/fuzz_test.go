package results

import (
	"os"
	"path/filepath"
	"testing"
)

// A damaged results.json is an error or a run that is safe to render: no
// nil cells, images or bases, no NaN or negative figures.
func FuzzDecode(f *testing.F) {
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
		run, err := Decode(data)
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
		}
		for _, b := range run.Images {
			if b == nil {
				t.Fatal("nil base image")
			}
		}
	})
}
