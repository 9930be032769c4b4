package matrix

import (
	"errors"
	"os"
	"path/filepath"
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
	if data, err := os.ReadFile("../../matrix.yaml"); err == nil { // the default matrix seeds the corpus too
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(filepath.Join("testdata", "matrix.yaml"), data)
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
