// Package scaffold writes a newcomer's first target: a minimal folder, in
// one of a few languages, that serves the default scenarios (plaintext and
// json) on base images the matrix declares, and the matrix entry to add
// for it. It owns the templates and nothing else.
package scaffold

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/template"

	"github.com/webbench/webbench/harness/matrix"
)

//go:embed templates
var templates embed.FS

// Lang is a template's language.
type Lang struct {
	Name string
	// Images are the images keys its Dockerfile takes, with the official
	// image a matrix should declare for each.
	Images map[string]string
}

// Langs are the languages a target can be scaffolded in.
var Langs = []Lang{
	{"go", map[string]string{"golang": "golang:1.26-bookworm", "debian": "debian:bookworm-slim"}},
	{"node", map[string]string{"node": "node:22-bookworm-slim"}},
	{"python", map[string]string{"python": "python:3.12-slim-bookworm"}},
}

// LangNames are the names of Langs, for messages.
func LangNames() []string {
	var n []string
	for _, l := range Langs {
		n = append(n, l.Name)
	}
	return n
}

// Write creates dir/name from the template of lang, refusing a folder
// that exists; it returns the folder written.
func Write(dir, name, lang string) (string, error) {
	if !matrix.ValidName(name) {
		return "", fmt.Errorf("target name %q: use lowercase letters and digits, separated by '.', '_', '__' or dashes (at most 63 characters)", name)
	}
	if !slices.Contains(LangNames(), lang) {
		return "", fmt.Errorf("--lang %q: must be one of %s", lang, strings.Join(LangNames(), ", "))
	}
	out := filepath.Join(dir, name)
	if _, err := os.Lstat(out); err == nil {
		return "", fmt.Errorf("%s already exists; pick another name or remove it", out)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	root := "templates/" + lang
	entries, err := fs.ReadDir(templates, root)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	for _, e := range entries {
		text, err := fs.ReadFile(templates, root+"/"+e.Name())
		if err != nil {
			return "", err
		}
		// Only {{.Name}} is substituted; no template source uses "{{"
		// for anything else.
		tmpl, err := template.New(e.Name()).Option("missingkey=error").Parse(string(text))
		if err != nil {
			return "", fmt.Errorf("template %s: %w", e.Name(), err)
		}
		var b bytes.Buffer
		if err := tmpl.Execute(&b, struct{ Name string }{name}); err != nil {
			return "", fmt.Errorf("template %s: %w", e.Name(), err)
		}
		file := strings.TrimSuffix(e.Name(), ".tmpl") // go.mod cannot be embedded under its own name, nor main.go be a package of this module
		if err := os.WriteFile(filepath.Join(out, file), b.Bytes(), 0o644); err != nil {
			return "", err
		}
	}
	return out, nil
}

// Entry is the matrix entry for a target written by Write at build (a
// path relative to the matrix's folder), and the images keys it needs
// that declared lacks, with the official image for each.
func Entry(name, lang, build string, declared map[string]string) (entry string, missing []string) {
	var l Lang
	for _, x := range Langs {
		if x.Name == lang {
			l = x
		}
	}
	for _, k := range slices.Sorted(maps.Keys(l.Images)) {
		if _, ok := declared[k]; !ok {
			missing = append(missing, fmt.Sprintf("  %s: %s", k, l.Images[k]))
		}
	}
	entry = fmt.Sprintf("  %s:\n    build: %s\n    port: 8080\n    scenarios: [plaintext, json]\n", name, filepath.ToSlash(build))
	return entry, missing
}
