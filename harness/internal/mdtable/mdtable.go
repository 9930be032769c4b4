// Package mdtable writes the Markdown tables of the reports through
// tablewriter, right-aligning the columns that hold numbers so that a
// reviewer compares magnitudes down a column at a glance.
package mdtable

import (
	"fmt"
	"io"
	"regexp"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Table collects a header and rows, and renders them on Render.
type Table struct {
	w      io.Writer
	header []any
	rows   [][]any
}

// New is a table that writes to w.
func New(w io.Writer) *Table { return &Table{w: w} }

// Header sets the column names.
func (t *Table) Header(cells ...any) { t.header = cells }

// Append adds a row.
func (t *Table) Append(cells ...any) error {
	t.rows = append(t.rows, cells)
	return nil
}

// number is how a numeric cell starts: "45,700 †", "-3.2%", "1.00× ~",
// "0.5…0.9", "+12%".
var number = regexp.MustCompile(`^[-+]?[0-9]`)

// placeholder cells say there is no number; they do not make a column
// textual.
var placeholder = map[string]bool{"": true, "—": true, "n<6": true, "?": true, "**fails**": true, "**none**": true}

// Numeric says which columns hold numbers: at least one, and no other
// text than placeholders.
func Numeric(rows [][]string, columns int) []bool {
	out := make([]bool, columns)
	for col := range columns {
		seen, ok := false, true
		for _, row := range rows {
			if col >= len(row) || placeholder[row[col]] {
				continue
			}
			if number.MatchString(row[col]) {
				seen = true
			} else {
				ok = false
			}
		}
		out[col] = seen && ok
	}
	return out
}

// Render writes the table: numeric columns right-aligned, the others left.
func (t *Table) Render() error {
	text := make([][]string, len(t.rows))
	for i, row := range t.rows {
		for _, c := range row {
			text[i] = append(text[i], fmt.Sprint(c))
		}
	}
	align := make([]tw.Align, len(t.header))
	for i, numeric := range Numeric(text, len(t.header)) {
		align[i] = tw.AlignLeft
		if numeric {
			align[i] = tw.AlignRight
		}
	}
	tb := tablewriter.NewTable(t.w,
		tablewriter.WithRenderer(renderer.NewMarkdown()),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
	)
	tb.Header(t.header...)
	for _, row := range t.rows {
		if err := tb.Append(row...); err != nil {
			return err
		}
	}
	return tb.Render()
}
