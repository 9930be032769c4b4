package scaffold

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/matrix"
)

// Every language writes a folder whose files carry the target's name,
// keep no template syntax and drop the .tmpl suffix.
func TestWrite(t *testing.T) {
	for _, l := range Langs {
		t.Run(l.Name, func(t *testing.T) {
			dir := t.TempDir()
			out, err := Write(dir, "mine", l.Name)
			if err != nil {
				t.Fatal(err)
			}
			if out != filepath.Join(dir, "mine") {
				t.Errorf("wrote %s, want %s", out, filepath.Join(dir, "mine"))
			}
			files := written(t, out)
			if !slices.Contains(files, "Dockerfile") {
				t.Errorf("no Dockerfile among %v", files)
			}
			for _, f := range files {
				text := read(t, filepath.Join(out, f))
				if strings.HasSuffix(f, ".tmpl") {
					t.Errorf("%s kept its .tmpl suffix", f)
				}
				if strings.Contains(text, "{{") {
					t.Errorf("%s keeps template syntax", f)
				}
			}
			if !strings.Contains(read(t, filepath.Join(out, "Dockerfile")), "mine") {
				t.Error("the Dockerfile does not name the target")
			}
		})
	}
}

// The Go template is a program: its files parse, and go.mod names the
// target's module.
func TestWriteGoParses(t *testing.T) {
	out, err := Write(t.TempDir(), "mine", "go")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), filepath.Join(out, "main.go"), nil, parser.AllErrors); err != nil {
		t.Errorf("main.go: %v", err)
	}
	if mod := read(t, filepath.Join(out, "go.mod")); !strings.HasPrefix(mod, "module example.com/mine\n") {
		t.Errorf("go.mod begins %q", firstLine(mod))
	}
}

// A Dockerfile takes exactly the images keys its language declares, as
// <KEY>_IMAGE build args: what Entry tells the user to add to images:.
func TestDockerfileArgsMatchImages(t *testing.T) {
	arg := regexp.MustCompile(`(?m)^ARG ([A-Z0-9_]+)_IMAGE$`)
	for _, l := range Langs {
		out, err := Write(t.TempDir(), "mine", l.Name)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range arg.FindAllStringSubmatch(read(t, filepath.Join(out, "Dockerfile")), -1) {
			got = append(got, strings.ToLower(m[1]))
		}
		slices.Sort(got)
		var want []string
		for k := range l.Images {
			want = append(want, k)
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: the Dockerfile takes %v, the language declares %v", l.Name, got, want)
		}
	}
}

func TestWriteRefuses(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(dir, "mine", "go"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, lang, want string }{
		{"mine", "go", "already exists"},
		{"Mine", "go", "target name \"Mine\""},
		{"-mine", "go", "target name"}, {"my..target", "go", "target name"},
		{"other", "rust", "--lang \"rust\": must be one of go, node, python"},
	} {
		if _, err := Write(dir, c.name, c.lang); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Write(%q, %q) = %v, want an error with %q", c.name, c.lang, err, c.want)
		}
	}
	if files := written(t, dir); !slices.Equal(files, []string{"mine/Dockerfile", "mine/go.mod", "mine/main.go"}) {
		t.Errorf("a refused Write left files: %v", files)
	}
}

// The entry Entry prints, with the keys it says are missing added, is a
// target the matrix decoder accepts; keys already declared are not
// reported again.
func TestEntryParses(t *testing.T) {
	for _, l := range Langs {
		t.Run(l.Name, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := Write(filepath.Join(dir, "targets"), "mine", l.Name); err != nil {
				t.Fatal(err)
			}
			entry, missing := Entry("mine", l.Name, "targets/mine", map[string]string{"unrelated": "x:1"})
			if len(missing) != len(l.Images) {
				t.Errorf("missing %v, want one line for each of %v", missing, l.Images)
			}
			text := "version: 1\nimages:\n" + strings.Join(missing, "\n") + "\ntargets:\n" + entry + scenarios
			path := filepath.Join(dir, "matrix.yaml")
			if _, err := matrix.Parse(path, []byte(text)); err != nil {
				t.Errorf("the entry does not parse: %v\n%s", err, text)
			}
			_, again := Entry("mine", l.Name, "targets/mine", l.Images)
			if len(again) != 0 {
				t.Errorf("declared keys reported missing: %v", again)
			}
		})
	}
}

const scenarios = `load: {duration: 2s, warmup: 1s, trials: 1, timeout: 2s, loadgen_cpus: 1}
cpus: [1]
connections: [64]
scenarios:
  plaintext:
    path: /plaintext
    expect: {status: 200, content_type: text/plain, body: "Hello, World!"}
  json:
    path: /json
    expect: {status: 200, content_type: application/json, json: {message: "Hello, World!"}}
`

func written(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	return files
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
