package analysis

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/webbench/webbench/harness/"

// The format, the analysis and the rendering stay three layers, so that
// every renderer prints the one model's figures and none can disagree with
// another: the file format computes nothing, the load generator writes no
// results.json, and the renderer computes no statistics of its own.
func TestLayers(t *testing.T) {
	for pkg, banned := range map[string][]string{
		"results": {"analysis", "stats", "report", "compare", "study"},
		"loadgen": {"results", "analysis"},
		"report":  {"stats"},
	} {
		imports := importsOf(t, filepath.Join("..", pkg))
		if len(imports) == 0 {
			t.Fatalf("%s: no imports read", pkg)
		}
		for _, b := range banned {
			if imports[module+b] {
				t.Errorf("%s imports %s", pkg, b)
			}
		}
	}
}

// importsOf is the set of packages dir's production files import (its
// tests aside).
func importsOf(t *testing.T, dir string) map[string]bool {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			out[path] = true
		}
	}
	return out
}
