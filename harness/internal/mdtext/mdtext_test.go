package mdtext

import (
	"strings"
	"testing"
)

func TestTextAndCode(t *testing.T) {
	for in, want := range map[string]string{
		"a|b <img src=x>\n`c`": `a\|b &lt;img src=x&gt; 'c'`,
		"plain":                "plain",
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Code("a`b|c <d>"); got != "`a'b\\|c <d>`" {
		t.Errorf("Code = %q", got)
	}
	if got := Text(strings.Repeat("x", 500)); len([]rune(got)) != MaxRunes+1 {
		t.Errorf("Text did not cut 500 characters: %d", len([]rune(got)))
	}
}

// Text from a results.json reaches a reader as text only: links and images
// passed Text in labels and the CPU model, CSV cells could be formulas,
// and compare-*.md names went raw into the index.
func TestNoInjection(t *testing.T) {
	for _, in := range []string{"[click](http://evil)", "![x](http://evil/p.png)", "AMD [EPYC](javascript:alert(1))"} {
		if got := Text(in); strings.Contains(got, "](") || strings.Contains(got, "![") {
			t.Errorf("Text(%q) = %q: still a link or an image", in, got)
		}
	}
	for in, want := range map[string]string{
		`=HYPERLINK("http://evil","x")`: `'=HYPERLINK("http://evil","x")`,
		"+cmd":                          "'+cmd", "@SUM(A1)": "'@SUM(A1)", "-x": "'-x",
		"-12.5": "-12.5", "go-nethttp": "go-nethttp", "": "",
	} {
		if got := CSVCell(in); got != want {
			t.Errorf("CSVCell(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Link("compare-a](http://evil) [b.md"); strings.Count(got, "](") != 1 || strings.Contains(got, "](http") {
		t.Errorf("Link = %q", got)
	}
}
