package cli

import (
	"bufio"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// maxRules is how many rules the Makefile may have (issue 36): the two
// commands and a few helpers, each listed by make help.
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
