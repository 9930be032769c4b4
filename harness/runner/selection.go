package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
)

// selectionOf is what a run measures: the expanded settings (the order and
// seed aside, which a resume takes from the run), the network mode and the
// cells.
type selectionOf struct {
	Settings results.Settings `json:"settings"`
	Network  matrix.Network   `json:"network"`
	Cells    []string         `json:"cells"`
}

func newSelection(m *matrix.Matrix, only string, mode matrix.Network, cells []matrix.Cell) selectionOf {
	s := selectionOf{Settings: SettingsOf(m, only), Network: mode}
	s.Settings.Path, s.Settings.Profiles = "", "" // the same matrix, wherever it is given from
	for _, c := range cells {
		s.Cells = append(s.Cells, c.ID())
	}
	return s
}

// Selection is the hash a run records of what it measures; --resume
// continues a run only under the same one.
func Selection(m *matrix.Matrix, only string, mode matrix.Network, cells []matrix.Cell) string {
	b, _ := json.Marshal(newSelection(m, only, mode, cells))
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// SelectionDiff says how this matrix, selection and mode differ from what
// prev measured, field by field.
func SelectionDiff(prev *results.Run, m *matrix.Matrix, only string, mode matrix.Network) string {
	if prev.Selection == "" {
		return "the results folder records no selection (written by an older harness, or damaged)"
	}
	// Every recorded setting, compared as written: a field added to the
	// settings later is compared too.
	var now, was map[string]json.RawMessage
	jn, _ := json.Marshal(SettingsOf(m, only))
	jw, _ := json.Marshal(prev.Matrix)
	json.Unmarshal(jn, &now)
	json.Unmarshal(jw, &was)
	var diffs []string
	for _, k := range slices.Sorted(maps.Keys(now)) {
		switch k {
		case "path", "order", "seed":
			continue // where the file is given from; what a resume takes over
		}
		if string(now[k]) != string(was[k]) {
			diffs = append(diffs, fmt.Sprintf("%s was %s, is %s", k, trim(was[k]), trim(now[k])))
		}
	}
	if results.Network(mode) != prev.Environment.NetworkMode {
		diffs = append(diffs, fmt.Sprintf("network mode was %s, is %s", prev.Environment.NetworkMode, mode))
	}
	if len(diffs) == 0 {
		return "the recorded settings match this matrix but its selection hash does not: the cells to measure differ " +
			"(another machine's CPU count?), or results.json was edited; start a new run (--force or another --out)"
	}
	return "the matrix differs from the run's: " + strings.Join(diffs, "; ")
}

func trim(b []byte) string {
	if r := []rune(string(b)); len(r) > 120 {
		return string(r[:120]) + "…"
	}
	return string(b)
}
