package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckBadInput: a folder no target is built from, and a flag out of
// range, are usage errors (exit 2) found before any engine is asked.
func TestCheckBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, sub := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, sub, "Dockerfile"), []byte("FROM scratch\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "matrix.yaml")
	text := "version: 1\nload: {duration: 1s, warmup: 0s, trials: 1}\nconnections: [8]\ntargets:\n" +
		"  a:\n    build: a\n    port: 8080\n  a2:\n    build: a\n    port: 8080\n" +
		"scenarios:\n  plaintext:\n    path: /plaintext\n    expect: {status: 200, body: \"x\"}\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{filepath.Join(dir, "b")}, "no target is built from"},
		{[]string{filepath.Join(dir, "a")}, "name one with --target"},
		{[]string{"--target", "zz", filepath.Join(dir, "a")}, "no target zz"},
		{[]string{"--timeout", "0s", filepath.Join(dir, "a")}, "--timeout"},
	} {
		var out, errb bytes.Buffer
		code := Main(context.Background(), append([]string{"check", "-f", file}, c.args...), &out, &errb)
		if code != ExitUsage || !strings.Contains(errb.String(), c.says) {
			t.Errorf("check %v: exit %d, stderr %q; want exit %d naming %q", c.args, code, errb.String(), ExitUsage, c.says)
		}
	}
}
