package mdtable

import (
	"reflect"
	"strings"
	"testing"
)

// Columns of numbers (with their marks, units and placeholders) are
// right-aligned; a column with any text is not.
func TestNumericColumnsRightAligned(t *testing.T) {
	var b strings.Builder
	tb := New(&b)
	tb.Header("target", "RPS", "CI", "bounded by")
	tb.Append("go-nethttp", "45,700 †", "n<6", "server cores")
	tb.Append("broken", "**fails**", "—", "—")
	tb.Append("node", "9,870 ⚠", "9,000…10,100", "generator †")
	if err := tb.Render(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "|:-----------|----------:|-------------:|:-------------|") {
		t.Errorf("alignment row:\n%s", b.String())
	}
	if got := Numeric([][]string{{"a", "1", "—"}, {"b", "x", "—"}}, 3); !reflect.DeepEqual(got, []bool{false, false, false}) {
		t.Errorf("Numeric = %v, want no numeric column (text in the second, only placeholders in the third)", got)
	}
}
