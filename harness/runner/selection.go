package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
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
	s := selectionOf{Settings: results.SettingsOf(m, only), Network: mode}
	s.Settings.Path = "" // the same matrix, wherever it is given from
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
	now, was := results.SettingsOf(m, only), prev.Matrix
	var diffs []string
	field := func(name string, a, b any) {
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			diffs = append(diffs, fmt.Sprintf("%s was %s, is %s", name, trim(jb), trim(ja)))
		}
	}
	field("profile", now.Profile, was.Profile)
	field("--only", now.Only, was.Only)
	field("control", now.Control, was.Control)
	field("load", now.Load, was.Load)
	field("cpus", now.CPUs, was.CPUs)
	field("connections", now.Connections, was.Connections)
	field("images", now.Images, was.Images)
	field("targets", now.Targets, was.Targets)
	field("scenarios", now.Scenarios, was.Scenarios)
	field("network mode", mode, prev.Environment.NetworkMode)
	if len(diffs) == 0 {
		return "the cells to measure differ (another machine's CPU count?)"
	}
	return "the matrix differs from the run's: " + strings.Join(diffs, "; ")
}

func trim(b []byte) string {
	if r := []rune(string(b)); len(r) > 120 {
		return string(r[:120]) + "…"
	}
	return string(b)
}
