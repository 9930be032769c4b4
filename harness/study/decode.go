package study

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/webbench/webbench/harness/internal/safefile"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/numfmt"
)

// MaxFileSize bounds a study.yaml.
const MaxFileSize = 1 << 20

// Open reads and validates a study.yaml. Every problem is reported in one
// matrix.Errors value, each at its file, line and column.
func Open(path string) (*File, error) {
	data, err := safefile.Read(path, MaxFileSize)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse validates data as a study.yaml named path. The shape is checked
// against File's yaml and check tags node by node, so that an unknown key,
// a missing one or a value of the wrong kind is named where it stands.
func Parse(path string, data []byte) (*File, error) {
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		return nil, matrix.Errors{{File: path, Line: 1, Col: 1, Msg: "YAML syntax: " + strings.TrimPrefix(err.Error(), "yaml: ")}}
	}
	if err := dec.Decode(new(yaml.Node)); !errors.Is(err, io.EOF) {
		return nil, matrix.Errors{{File: path, Line: 1, Col: 1, Msg: "a study.yaml is one YAML document"}}
	}
	if len(root.Content) == 0 {
		return nil, matrix.Errors{{File: path, Line: 1, Col: 1, Msg: "empty study file"}}
	}
	c := &checker{file: path, at: map[string]*yaml.Node{}}
	doc := root.Content[0]
	c.walk(doc, reflect.TypeFor[File](), "", "")
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	var f File
	if err := doc.Decode(&f); err != nil {
		return nil, matrix.Errors{{File: path, Line: doc.Line, Col: doc.Column, Msg: "cannot decode: " + strings.TrimPrefix(err.Error(), "yaml: ")}}
	}
	c.meaning(&f)
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	return &f, nil
}

type checker struct {
	file string
	errs matrix.Errors
	at   map[string]*yaml.Node // the node of every field path the file sets
}

func (c *checker) errorf(n *yaml.Node, field, format string, args ...any) {
	c.errs = append(c.errs, &matrix.Error{File: c.file, Line: n.Line, Col: n.Column, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// errAt reports a problem at field's node, or its nearest parent's.
func (c *checker) errAt(field, format string, args ...any) {
	p := field
	for c.at[p] == nil && p != "" {
		p = p[:max(strings.LastIndexAny(p, ".["), 0)]
	}
	c.errorf(c.at[p], field, format, args...)
}

func tagged(check, name string) (string, bool) {
	for _, part := range strings.Split(check, ",") {
		if k, v, _ := strings.Cut(part, "="); k == name {
			return v, true
		}
	}
	return "", false
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// walk checks node n against type t and its field's check tag.
func (c *checker) walk(n *yaml.Node, t reflect.Type, path, check string) {
	c.at[path] = n
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t.Kind() == reflect.Struct:
		c.walkStruct(n, t, path)
	case t.Kind() == reflect.Slice:
		c.walkSlice(n, t, path, check)
	case n.Kind != yaml.ScalarNode:
		c.errorf(n, path, "want a single value, got %s", matrix.KindName(n))
	default:
		c.scalar(n, t, path, check)
	}
}

func (c *checker) walkStruct(n *yaml.Node, t reflect.Type, path string) {
	if n.Kind != yaml.MappingNode {
		c.errorf(n, path, "want a mapping, got %s", matrix.KindName(n))
		return
	}
	fields := map[string]reflect.StructField{}
	for i := range t.NumField() {
		fields[t.Field(i).Tag.Get("yaml")] = t.Field(i)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		f, ok := fields[k.Value]
		switch {
		case seen[k.Value]:
			c.errorf(k, join(path, k.Value), "duplicate key")
		case !ok:
			c.errorf(k, join(path, k.Value), "unknown key (known: %s)", strings.Join(slices.Sorted(maps.Keys(fields)), ", "))
		default:
			c.walk(v, f.Type, join(path, k.Value), f.Tag.Get("check"))
		}
		seen[k.Value] = true
	}
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		if _, req := tagged(fields[name].Tag.Get("check"), "required"); req && !seen[name] {
			c.errorf(n, join(path, name), "missing")
		}
	}
}

func (c *checker) walkSlice(n *yaml.Node, t reflect.Type, path, check string) {
	if n.Kind != yaml.SequenceNode {
		c.errorf(n, path, "want a list, got %s", matrix.KindName(n))
		return
	}
	if _, ok := tagged(check, "nonempty"); ok && len(n.Content) == 0 {
		c.errorf(n, path, "must not be empty")
	}
	_, unique := tagged(check, "unique")
	seen := map[string]*yaml.Node{}
	for i, e := range n.Content {
		f := fmt.Sprintf("%s[%d]", path, i)
		if first := seen[e.Value]; unique && e.Kind == yaml.ScalarNode && first != nil {
			c.errorf(e, f, "duplicate value %q (also at line %d)", e.Value, first.Line)
		}
		seen[e.Value] = e
		c.walk(e, t.Elem(), f, check)
	}
}

// scalar checks one value: its kind, then oneof and min.
func (c *checker) scalar(n *yaml.Node, t reflect.Type, path, check string) {
	switch {
	case t == reflect.TypeFor[time.Duration]():
		if d, err := time.ParseDuration(n.Value); err != nil || d <= 0 {
			c.errorf(n, path, "want a positive duration such as 120s, got %q", n.Value)
		}
	case t.Kind() == reflect.Int || t.Kind() == reflect.Int64:
		v, err := strconv.ParseInt(n.Value, 10, 64)
		low, hasMin := tagged(check, "min")
		lo, _ := strconv.ParseInt(low, 10, 64)
		if err != nil || n.Tag != "!!int" {
			c.errorf(n, path, "want an integer, got %q", n.Value)
		} else if hasMin && v < lo {
			c.errorf(n, path, "must be at least %d, got %d", lo, v)
		}
	case t.Kind() == reflect.Float64:
		if v, err := strconv.ParseFloat(n.Value, 64); err != nil || n.Tag != "!!int" && n.Tag != "!!float" || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			c.errorf(n, path, "want a number of 0 or more, got %q", n.Value)
		}
	case n.Tag != "!!str":
		c.errorf(n, path, "want a string, got %s %q (quote it)", strings.TrimPrefix(n.Tag, "!!"), n.Value)
	default:
		if one, ok := tagged(check, "oneof"); ok && !slices.Contains(strings.Split(one, "|"), n.Value) {
			c.errorf(n, path, "want one of %s, got %q", strings.ReplaceAll(one, "|", ", "), n.Value)
		}
	}
}

// MaxTolerance bounds an about's slack: ±50% already takes in ratios
// a factor of 2.25 apart, and a wider one would call any ratio "about"
// the claim's (a tolerance of 1e300 confirms everything).
const MaxTolerance = 0.5

// meaning checks what the shape cannot: a setup that states every item
// or names it unstated, unique claim ids, the English of a claim in
// another language, one reason at most, a test that can judge.
func (c *checker) meaning(f *File) {
	c.setupStated(f.Setup)
	ids := map[string]int{}
	for i, cl := range f.Claims {
		p := fmt.Sprintf("claims[%d]", i)
		if j, dup := ids[cl.ID]; dup {
			c.errAt(p+".id", "duplicate claim id %q (also claims[%d])", cl.ID, j)
		}
		ids[cl.ID] = i
		if !matrix.ValidName(cl.ID) {
			c.errAt(p+".id", "id %q: use lowercase letters, digits and '-'", cl.ID)
		}
		if f.Language != "" && f.Language != "en" && cl.English == "" {
			c.errAt(p, "the study is in %s: give the claim's english beside its quote", f.Language)
		}
		if cl.NotTestableHere != "" && cl.Untestable != "" {
			c.errAt(p+".untestable", "give one reason: not_testable_here or untestable")
		}
		if n := c.at[p+".not_testable_here"]; n != nil {
			f.Claims[i].reasonAt = pos{file: c.file, field: p + ".not_testable_here", line: n.Line, col: n.Column}
		}
		if cl.Setup != nil {
			c.unstatedButSet(*cl.Setup, p+".setup")
		}
		if cl.Test != nil {
			c.test(cl.Test, p+".test")
		}
	}
}

// stated lists each checklist item with whether a setup states it.
func stated(s Setup) map[string]bool {
	return map[string]bool{
		"tool": s.Tool != "", "tool_version": s.ToolVersion != "",
		"load":    (s.Requests > 0 || s.Duration > 0) && len(s.Connections) > 0,
		"pinning": s.Pinning != "", "cores": s.Cores > 0, "os": s.OS != "",
		"servers": len(s.Servers) > 0, "statistic": s.Statistic != "", "runs": s.Runs > 0,
	}
}

// setupStated: every item of the study's setup is stated or named under
// unstated, so that "not stated" is a choice the file makes and shows,
// never a field forgotten (setup: {} would otherwise match any run).
func (c *checker) setupStated(s Setup) {
	c.unstatedButSet(s, "setup")
	for _, name := range slices.Sorted(maps.Keys(stated(s))) {
		if !stated(s)[name] && !slices.Contains(s.Unstated, name) {
			c.errAt("setup."+name, "missing: state the study's %s, or name it under setup.unstated if the study does not say", itemFields[name])
		}
	}
}

// itemFields are the setup fields that state each item.
var itemFields = map[string]string{
	"tool": "tool", "tool_version": "tool_version", "load": "load (connections, and requests or duration)",
	"pinning": "pinning", "cores": "cores", "os": "os (linux or windows)", "servers": "servers",
	"statistic": "statistic", "runs": "runs (how many runs the statistic is taken over)",
}

func (c *checker) unstatedButSet(s Setup, p string) {
	for i, name := range s.Unstated {
		if stated(s)[name] {
			c.errAt(fmt.Sprintf("%s.unstated[%d]", p, i), "%s is named unstated, but the setup states it", name)
		}
	}
}

func (c *checker) test(t *Test, p string) {
	switch {
	case t.Expect == "about" && t.Tolerance <= 0:
		c.errAt(p+".tolerance", "about needs the claim's own tolerance, e.g. 0.25 for ±25%%")
	case t.Expect != "about" && t.Tolerance > 0:
		c.errAt(p+".tolerance", "only about takes a tolerance")
	case t.Expect == "about" && t.Tolerance > MaxTolerance:
		c.errAt(p+".tolerance", "%g is wider than ±%s: an about that loose matches ratios far apart; use greater or less", t.Tolerance, numfmt.Percent(MaxTolerance))
	case t.Expect == "fails" && t.Value != 0:
		c.errAt(p+".value", "fails takes no value")
	}
	if c.at[p+".value"] != nil && t.Value == 0 {
		c.errAt(p+".value", "must be above 0")
	}
	for i, pr := range t.Pairs {
		if pr.A == pr.B {
			c.errAt(fmt.Sprintf("%s.pairs[%d].b", p, i), "the same cell as a: a cell over itself is 1 whatever was measured")
		}
	}
	c.cellsOrPairs(t, p)
}

// oneCell are the metrics and expectations that read a cell by itself.
var oneCell = map[string]bool{"cpu_split": true, "cpu_busy": true, "no_errors": true}

// cellsOrPairs: a test names pairs (A ÷ B) or, for a one-cell metric or
// expectation, cells; never both, never neither.
func (c *checker) cellsOrPairs(t *Test, p string) {
	single := oneCell[t.Metric] || oneCell[t.Expect]
	switch {
	case len(t.Pairs) > 0 && len(t.Cells) > 0:
		c.errAt(p+".cells", "give pairs or cells, not both")
	case single && len(t.Cells) == 0:
		c.errAt(p+".cells", "missing: %s reads one cell by itself; name the cells", oneOf(t))
	case !single && len(t.Pairs) == 0:
		c.errAt(p+".pairs", "missing: name the pairs of cells, a over b")
	case !single && len(t.Cells) > 0:
		c.errAt(p+".cells", "cells are for no_errors, cpu_split and cpu_busy; metric %s compares pairs", t.Metric)
	case t.Expect == "no_errors" && t.Metric != "errors":
		c.errAt(p+".metric", "no_errors reads the errors metric, not %s", t.Metric)
	case t.Expect == "no_errors" && (t.Value != 0 || t.Tolerance != 0):
		c.errAt(p+".value", "no_errors takes no value: a cell has failed requests or none")
	case t.Expect == "fails" && single:
		c.errAt(p+".expect", "fails compares a over b; use no_errors for one cell")
	}
}

func oneOf(t *Test) string {
	if oneCell[t.Expect] {
		return "expect " + t.Expect
	}
	return "metric " + t.Metric
}
