// Package mdtext makes strings that users and machines supply safe to put
// in the Markdown that report and compare render: one line, no table or
// HTML syntax, at most MaxRunes characters. It owns nothing else.
package mdtext

import "strings"

// MaxRunes bounds one rendered value.
const MaxRunes = 400

var (
	text = strings.NewReplacer("|", "\\|", "<", "&lt;", ">", "&gt;", "`", "'")
	code = strings.NewReplacer("`", "'", "|", "\\|")
)

// Text is s as Markdown text on one line: a pipe cannot split a table
// row, an angle bracket cannot open an HTML tag, a backtick cannot open
// code.
func Text(s string) string { return cut(text.Replace(oneLine(s))) }

// Code is s as an inline code span on one line: a backtick cannot end it
// early, a pipe cannot split the table row it stands in.
func Code(s string) string { return "`" + cut(code.Replace(oneLine(s))) + "`" }

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func cut(s string) string {
	if r := []rune(s); len(r) > MaxRunes {
		return string(r[:MaxRunes]) + "…"
	}
	return s
}
