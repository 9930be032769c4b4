package study

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/results"
)

// Item is one line of a setup-match checklist: what the study did, what
// the run did, and whether they match. An item the study does not state
// (setup.unstated) cannot be shown to match: NotStated, and not OK.
type Item struct {
	Name      string
	Want      string // the study's; "" when it does not say
	Seen      string // the run's
	OK        bool
	NotStated bool
}

// The checklist's items, in the order it prints them.
const (
	ItemTool      = "tool"
	ItemLoad      = "load"
	ItemPinning   = "pinning"
	ItemCores     = "cores"
	ItemOS        = "machine/OS"
	ItemServers   = "servers"
	ItemStatistic = "statistic"
	ItemControl   = "A/A control"
	ItemGenerator = "generator not the bound"
)

// merged is the claim's setup: the study's, with what the claim's own
// replaces.
func merged(study Setup, own *Setup) Setup {
	s := study
	if own == nil {
		return s
	}
	o := *own
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&s.Tool, o.Tool)
	set(&s.ToolVersion, o.ToolVersion)
	set(&s.Pinning, o.Pinning)
	set(&s.Machine, o.Machine)
	set(&s.Statistic, o.Statistic)
	set(&s.Words, o.Words)
	set(&s.OS, o.OS)
	set(&s.Across, o.Across)
	// what the claim's own setup states is stated for it; what it names
	// unstated is unstated for it
	var un []string
	for _, name := range s.Unstated {
		if !stated(o)[name] {
			un = append(un, name)
		}
	}
	s.Unstated = append(un, o.Unstated...)
	for _, name := range o.Unstated {
		unset(&s, name)
	}
	if o.Requests != 0 || o.Duration != 0 {
		s.Requests, s.Duration = o.Requests, o.Duration
	}
	if len(o.Connections) > 0 {
		s.Connections = o.Connections
	}
	if o.Cores != 0 {
		s.Cores = o.Cores
	}
	if len(o.Servers) > 0 {
		s.Servers = o.Servers
	}
	if o.Runs != 0 {
		s.Runs = o.Runs
	}
	return s
}

// unset clears the fields of an item a claim's own setup names unstated.
func unset(s *Setup, name string) {
	switch name {
	case "tool":
		s.Tool = ""
	case "tool_version":
		s.ToolVersion = ""
	case "load":
		s.Requests, s.Duration, s.Connections = 0, 0, nil
	case "pinning":
		s.Pinning = ""
	case "cores":
		s.Cores = 0
	case "os":
		s.OS = ""
	case "servers":
		s.Servers = nil
	case "statistic":
		s.Statistic = ""
	case "runs":
		s.Runs = 0
	}
}

// checklist holds the run's cells a and b to the setup s. needFloor is
// false for a test no A/A floor bears on (a count of failed requests).
func checklist(s Setup, r *Run, a, b *results.Cell, floor Floor, hasFloor, needFloor bool) []Item {
	items := []Item{
		toolItem(s, a),
		loadItem(s, r, a, b),
		item(ItemPinning, s.Pinning, pinning(a.Pinning)+pairSuffix(pinning(a.Pinning), pinning(b.Pinning)),
			pinning(a.Pinning) == s.Pinning && pinning(b.Pinning) == s.Pinning),
		coresItem(s, a, b),
		osItem(s, r),
		serversItem(s, a, b),
		statisticItem(s, r),
		generatorItem(a, b),
	}
	for i, it := range items {
		if slices.Contains(s.Unstated, unstatedName[it.Name]) || it.Name == ItemTool && slices.Contains(s.Unstated, "tool_version") ||
			it.Name == ItemStatistic && slices.Contains(s.Unstated, "runs") {
			items[i] = Item{Name: it.Name, Want: it.Want, Seen: it.Seen, NotStated: true}
		}
	}
	ctl := Item{Name: ItemControl, Want: "in the same run", Seen: "none", OK: hasFloor}
	switch {
	case !needFloor:
		ctl = Item{Name: ItemControl, Want: "none needed", Seen: "none needed: a count of failed requests is zero or not, with no noise to clear", OK: true}
	case hasFloor:
		ctl.Seen = fmt.Sprintf("floor ±%.1f%% from %s (%d pairs)", floor.Percent(), floor.Cell, floor.N)
		if floor.Cell != a.ID() && floor.Cell != b.ID() {
			ctl.Seen += ", borrowed: no control of these cells"
		}
	}
	return append(items, ctl)
}

// unstatedName is the setup.unstated name of each checklist item.
var unstatedName = map[string]string{
	ItemTool: "tool", ItemLoad: "load", ItemPinning: "pinning", ItemCores: "cores", ItemOS: "os",
	ItemServers: "servers", ItemStatistic: "statistic",
}

// item is one line; a study that gives no value (a claim's own setup can
// leave one out where the file names it unstated) matches nothing.
func item(name, want, seen string, ok bool) Item {
	return Item{Name: name, Want: want, Seen: seen, OK: ok && want != ""}
}

// osItem holds the run's machine to the study's operating system.
func osItem(s Setup, r *Run) Item {
	seen := fmt.Sprintf("%s (%s, %d CPUs)", r.Environment.OS, r.Environment.CPUModel, r.Environment.OnlineCPUs)
	return item(ItemOS, s.OS, seen, osMatches(s.OS, r.Environment.OS))
}

func pairSuffix(a, b string) string {
	if a == b {
		return ""
	}
	return " and " + b
}

func pinning(p string) string {
	if p == "" {
		return cellid.PinApart
	}
	return p
}

func toolItem(s Setup, a *results.Cell) Item {
	seen := a.GeneratorName()
	if a.Generator != nil && a.Generator.Version != "" {
		seen += " " + a.Generator.Version
	}
	want := s.Tool
	if want != "" && s.ToolVersion != "" {
		want += " " + s.ToolVersion
	}
	ok := a.GeneratorName() == s.Tool
	if s.ToolVersion != "" {
		// an unrecorded version cannot be shown to match
		ok = ok && a.Generator != nil && strings.TrimPrefix(a.Generator.Version, "v") == strings.TrimPrefix(s.ToolVersion, "v")
	}
	return item(ItemTool, want, seen, ok)
}

// loadItem holds the connections and the per-run count or duration.
func loadItem(s Setup, r *Run, a, b *results.Cell) Item {
	want := loadText(s.Connections, s.Requests, s.Duration)
	reqs := func(c *results.Cell) int64 {
		if c.Requests > 0 {
			return c.Requests
		}
		return r.Matrix.Load.Requests
	}
	conns := []int{a.Connections}
	if b.Connections != a.Connections {
		conns = append(conns, b.Connections)
	}
	dur := time.Duration(r.Matrix.Load.Duration)
	seen := loadText(conns, reqs(a), dur)
	if reqs(b) != reqs(a) {
		seen += " and -n " + strconv.FormatInt(reqs(b), 10)
	}
	ok := len(s.Connections) > 0 && (s.Requests > 0 || s.Duration > 0)
	for _, c := range conns {
		ok = ok && slices.Contains(s.Connections, c)
	}
	switch {
	case s.Requests > 0:
		ok = ok && reqs(a) == s.Requests && reqs(b) == s.Requests
	case s.Duration > 0:
		ok = ok && reqs(a) == 0 && reqs(b) == 0 && dur == s.Duration
	}
	return item(ItemLoad, want, seen, ok)
}

func loadText(conns []int, requests int64, d time.Duration) string {
	var parts []string
	for _, c := range conns {
		parts = append(parts, "-c "+strconv.Itoa(c))
	}
	switch {
	case requests > 0:
		parts = append(parts, "-n "+strconv.FormatInt(requests, 10))
	case d > 0:
		parts = append(parts, "-d "+d.String())
	}
	return strings.Join(parts, " ")
}

func coresItem(s Setup, a, b *results.Cell) Item {
	want := ""
	if s.Cores > 0 {
		want = strconv.Itoa(s.Cores)
	}
	seen := strconv.Itoa(a.CPUs) + pairSuffix(strconv.Itoa(a.CPUs), strconv.Itoa(b.CPUs))
	return item(ItemCores, want, seen, a.CPUs == s.Cores && b.CPUs == s.Cores)
}

// serversItem holds each cell's target and runtime to the study's servers.
func serversItem(s Setup, a, b *results.Cell) Item {
	var want, seen []string
	for _, sv := range s.Servers {
		want = append(want, sv.Name)
	}
	ok := true
	for _, c := range []*results.Cell{a, b} {
		sv, match := server(s.Servers, c)
		ok = ok && match
		text := c.Key().TargetName()
		if c.Image != nil && c.Image.RuntimeVersion != "" {
			text += " (" + c.Image.RuntimeVersion + ")"
		}
		if sv == nil {
			text += " is none of the study's"
		} else if !match {
			text += " is not " + sv.Runtime
		}
		if !slices.Contains(seen, text) {
			seen = append(seen, text)
		}
	}
	return item(ItemServers, strings.Join(want, "; "), strings.Join(seen, "; "), ok)
}

// server is the study's server c stands for, and whether c ran its runtime.
func server(servers []Server, c *results.Cell) (*Server, bool) {
	for i, sv := range servers {
		if sv.Target != c.Key().TargetName() && sv.Target != c.Target {
			continue
		}
		rt := ""
		if c.Image != nil {
			rt = c.Image.RuntimeVersion
		}
		return &servers[i], sv.Runtime == "" || strings.HasPrefix(rt, sv.Runtime)
	}
	return nil, false
}

func statisticItem(s Setup, r *Run) Item {
	trials, agg := r.Matrix.Load.Trials, r.Matrix.Load.Aggregate
	seen := fmt.Sprintf("%s of %d trials", agg, trials)
	if s.Statistic == "single" {
		seen = fmt.Sprintf("%d trials, each read as one run", trials)
	}
	want := s.Statistic
	if s.Statistic == "single" {
		want = "one run's figure"
	} else if want != "" && s.Runs > 0 {
		want = fmt.Sprintf("%s of %d runs", s.Statistic, s.Runs)
	}
	if s.Words != "" {
		want += " (" + s.Words + ")"
	}
	enough := trials >= s.Runs
	var ok bool
	switch s.Statistic {
	case "single":
		// every trial is one run of its own, as the study's one was: a
		// run of several gives the spread of single runs, not a median
		ok = trials >= 1
	case "best":
		ok = agg == results.AggregateBest && enough
	case "median":
		ok = agg == results.AggregateMedian && enough && trials > 1
	}
	return item(ItemStatistic, want, seen, ok)
}

// allOK says every item of the checklist matches.
func allOK(items []Item) bool {
	for _, it := range items {
		if !it.OK {
			return false
		}
	}
	return true
}

// generatorItem: the study measured its servers, not its load generator;
// a cell with a generator-bound trial measured the generator.
func generatorItem(a, b *results.Cell) Item {
	bound := func(c *results.Cell) int {
		if c.Summary == nil {
			return 0
		}
		return c.Summary.GeneratorBound
	}
	n := bound(a) + bound(b)
	seen := "no generator-bound trial"
	if n > 0 {
		seen = fmt.Sprintf("%d generator-bound trial(s)", n)
	}
	return Item{Name: ItemGenerator, Want: "the server measured, not the load generator", Seen: seen, OK: n == 0}
}
