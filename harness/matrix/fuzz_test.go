package matrix

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/cpuset"
)

// Whatever the file holds, decoding ends with a matrix or with positioned
// errors; it never panics or hangs, and what it accepts expands.
func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte(studies))
	f.Add([]byte("version: 1\nload: 5\ntargets: [a]\n"))
	f.Add([]byte("version: 1\nx: &a {duration: 1s}\nload: *a\nconnections: [1]\ntargets: {}\nscenarios: {}\n"))
	f.Add([]byte("a: [1, 2\n"))
	// Deep and aliased inputs: the shapes that once took gigabytes or lost
	// every key after them.
	f.Add([]byte("version: 1\nx: " + strings.Repeat("[", 70) + "\n"))
	f.Add([]byte("version: 1\nx: " + strings.Repeat("{a: ", 40) + "\n"))
	// Random mutation does not grow a seed's depth by thousands (150 s of
	// fuzzing with the depth guard taken out found nothing), so the fuzzer
	// starts from depths that blew up: 10,000 nested brackets (10 KB)
	// allocated 161 MB with the guard taken out, 4,000 "[{a: " 134 MB, over
	// this target's 100 MB; with it, a few KB.
	f.Add([]byte("version: 1\nx: " + strings.Repeat("[", 10000) + "\n"))
	f.Add([]byte("version: 1\nx: " + strings.Repeat("[{a: ", 4000) + "\n"))
	f.Add([]byte(strings.Replace(good, "path: /", "path: /\n    expect: {status: 200, json: &a [*a]}\n    x: /", 1)))
	f.Add([]byte("version: 1\n---\nversion: 1\n"))
	if data, err := os.ReadFile("../../matrix.yaml"); err == nil { // the default matrix seeds the corpus too
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		m, err := Parse(filepath.Join("testdata", "matrix.yaml"), data)
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 100<<20 {
			t.Errorf("parsing %d bytes allocated %d MB", len(data), grew>>20)
		}
		var errs Errors
		if err != nil && errors.As(err, &errs) {
			for _, e := range errs {
				if e.Line < 1 || e.Col < 1 {
					t.Errorf("error without a position: %v", e)
				}
			}
			return
		}
		if err == nil {
			if n := Count(m, nil); n <= MaxCells {
				Expand(m, nil, cpuset.Range(0, 4))
			}
		}
	})
}
