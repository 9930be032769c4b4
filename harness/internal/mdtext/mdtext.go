// Package mdtext makes strings that users and machines supply safe to put
// in the Markdown that report and compare render: one line, no table or
// HTML syntax, at most MaxRunes characters. It owns nothing else.
package mdtext

import (
	"net/url"
	"strconv"
	"strings"
)

// MaxRunes bounds one rendered value.
const MaxRunes = 400

var (
	// "](" and "![" are escaped so that no link or image can be formed:
	// a label or a CPU model must not point a reader's click anywhere.
	text = strings.NewReplacer("|", "\\|", "<", "&lt;", ">", "&gt;", "`", "'", "](", "]\\(", "![", "!\\[")
	code = strings.NewReplacer("`", "'", "|", "\\|")
)

// Text is s as Markdown text on one line: a pipe cannot split a table
// row, an angle bracket cannot open an HTML tag, a backtick cannot open
// code.
func Text(s string) string { return cut(text.Replace(oneLine(s))) }

// Code is s as an inline code span on one line: a backtick cannot end it
// early, a pipe cannot split the table row it stands in.
func Code(s string) string { return "`" + cut(code.Replace(oneLine(s))) + "`" }

// Link is a Markdown link to the file name target, with the name as its
// text: the text made safe as Text (and no bracket can close it early),
// the target escaped as a URL path of one file, so that neither can inject
// a link or markup (what an index of compare-*.md files needs).
func Link(name string) string {
	label := strings.NewReplacer("[", "\\[", "]", "\\]").Replace(Text(name))
	return "[" + label + "](" + (&url.URL{Path: name}).EscapedPath() + ")"
}

// CSVCell is s as a CSV cell that a spreadsheet shows as text: a cell
// starting with =, +, -, @, a tab or a CR is a formula to Excel and
// LibreOffice (=HYPERLINK(…) opens a link), so it gets a leading '. A
// number (-12.5) is left as it is.
func CSVCell(s string) string {
	if s == "" || !strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return s
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return s
	}
	return "'" + s
}

// CSVRow is each field of row as CSVCell makes it.
func CSVRow(row []string) []string {
	out := make([]string, len(row))
	for i, s := range row {
		out[i] = CSVCell(s)
	}
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func cut(s string) string {
	if r := []rune(s); len(r) > MaxRunes {
		return string(r[:MaxRunes]) + "…"
	}
	return s
}
