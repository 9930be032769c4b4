package cli

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// maxRules is how many rules the Makefile may have, so that make help
// lists only what a user runs: the two commands and a few helpers (one-off
// experiments are commands in docs/running.md, not rules).
const maxRules = 12

// TestMakefileRules holds the Makefile to at most maxRules rules, each
// preceded by its one "## rule: …" line (what make help prints), and
// its .PHONY to exactly those rules (a phony name without a rule is a
// make target that fails).
func TestMakefileRules(t *testing.T) {
	f, err := os.Open("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ruleRE := regexp.MustCompile(`^([A-Za-z0-9_.-]+)\s*:([^=]|$)`)
	var rules, phony []string
	help := map[string]bool{}
	lastHelp := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if name, _, ok := strings.Cut(strings.TrimPrefix(line, "## "), ":"); strings.HasPrefix(line, "## ") && ok && !strings.Contains(name, " ") {
			help[name] = true
			lastHelp = name
			continue
		}
		m := ruleRE.FindStringSubmatch(line)
		switch {
		case m == nil:
			if !strings.HasPrefix(line, "#") && !strings.Contains(line, "?=") {
				lastHelp = ""
			}
		case m[1] == ".PHONY":
			phony = strings.Fields(line[len(".PHONY:"):])
		default:
			rules = append(rules, m[1])
			if lastHelp != m[1] {
				t.Errorf("rule %s: the line before it (comments and variables aside) is not its \"## %s: …\" help line", m[1], m[1])
			}
			lastHelp = ""
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rules) > maxRules {
		t.Errorf("the Makefile has %d rules, more than %d: %v", len(rules), maxRules, rules)
	}
	for name := range help {
		if !slices.Contains(rules, name) {
			t.Errorf("make help lists %s, which is no rule", name)
		}
	}
	slices.Sort(rules)
	slices.Sort(phony)
	if !slices.Equal(rules, phony) {
		t.Errorf(".PHONY lists %v, the rules are %v", phony, rules)
	}
}

// TestDocsNameRealRules fails when a document or a commented file names a
// make rule the Makefile does not have (`make fidelity` outlived its rule
// in results/README.md once).
func TestDocsNameRealRules(t *testing.T) {
	data, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^([a-z][a-z0-9-]*)\s*:`).FindAllStringSubmatch(string(data), -1) {
		rules[m[1]] = true
	}
	files := []string{"../../README.md", "../../matrix.yaml", "../../results/README.md"}
	for _, glob := range []string{"../../docs/*.md", "../../studies/*/*.yaml", "../../studies/*/README.md"} {
		more, _ := filepath.Glob(glob)
		files = append(files, more...)
	}
	named := regexp.MustCompile("`make ([a-z][a-z0-9-]*)")
	for _, name := range files {
		if name == "../../docs/history.md" {
			continue // work notes: the rules they name were the Makefile's of their day
		}
		text, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range named.FindAllStringSubmatch(string(text), -1) {
			if !rules[m[1]] {
				t.Errorf("%s names `make %s`, which is no rule of the Makefile", strings.TrimPrefix(name, "../../"), m[1])
			}
		}
	}
}
