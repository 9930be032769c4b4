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
