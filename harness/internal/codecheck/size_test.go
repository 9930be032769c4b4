package codecheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The runner coordinates, holding at most maxRunnerFields fields, and no
// interface it declares (its engine's roles, its generator, …) has more
// than maxMethods methods, those of the interfaces it embeds counted: what
// starts and stops owns its own life, and a unit test's stand-in for a
// role implements a few methods, not the whole engine.
const (
	maxRunnerFields = 10
	maxMethods      = 8
)

func TestRunnerSize(t *testing.T) {
	runner, baseimage := typesOf(t, "runner"), typesOf(t, "baseimage")
	st, ok := runner["runner"].(*ast.StructType)
	if !ok {
		t.Fatal("no struct type runner in harness/runner")
	}
	if n := fieldCount(st.Fields); n > maxRunnerFields {
		t.Errorf("type runner has %d fields, at most %d: split it by lifecycle", n, maxRunnerFields)
	}
	scopes := map[string]map[string]ast.Expr{"": runner, "baseimage": baseimage}
	interfaces := 0
	for name, typ := range runner {
		if it, ok := typ.(*ast.InterfaceType); ok {
			interfaces++
			if n := len(methodSet(t, it, scopes, "")); n > maxMethods {
				t.Errorf("interface %s has %d methods, at most %d: split it by role", name, n, maxMethods)
			}
		}
	}
	if interfaces == 0 {
		t.Fatal("no interface read in harness/runner")
	}
}

// typesOf is the types declared in the production files of harness/pkg,
// by name.
func typesOf(t *testing.T, pkg string) map[string]ast.Expr {
	t.Helper()
	dir := filepath.Join("..", "..", pkg)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]ast.Expr{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok {
				types[ts.Name.Name] = ts.Type
			}
			return true
		})
	}
	return types
}

// fieldCount counts each name of a field list (a, b int is two), an
// embedded field as one.
func fieldCount(fl *ast.FieldList) int {
	n := 0
	for _, f := range fl.List {
		n += max(1, len(f.Names))
	}
	return n
}

// methodSet is the names of it's methods, its embedded interfaces'
// included, resolved in scopes (by package name; "" is the one it is
// declared in).
func methodSet(t *testing.T, it *ast.InterfaceType, scopes map[string]map[string]ast.Expr, pkg string) map[string]bool {
	t.Helper()
	set := map[string]bool{}
	for _, m := range it.Methods.List {
		if len(m.Names) > 0 {
			for _, n := range m.Names {
				set[n.Name] = true
			}
			continue
		}
		in, name := pkg, ""
		switch e := m.Type.(type) {
		case *ast.Ident:
			name = e.Name
		case *ast.SelectorExpr:
			in, name = e.X.(*ast.Ident).Name, e.Sel.Name
		}
		embedded, ok := scopes[in][name].(*ast.InterfaceType)
		if !ok {
			t.Fatalf("embedded interface %s.%s not found", in, name)
		}
		for n := range methodSet(t, embedded, scopes, in) {
			set[n] = true
		}
	}
	return set
}
