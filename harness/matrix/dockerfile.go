package matrix

import (
	"fmt"
	"regexp"
	"strings"
)

// From is one FROM line of a Dockerfile, as the harness resolves it.
type From struct {
	Line  int    // 1-based, where the instruction starts
	Raw   string // the image as written, e.g. ${GOLANG_IMAGE} or python:3.12-slim
	Key   string // the images key of a ${<KEY>_IMAGE} argument, else ""
	Image string // the image after the global ARGs' defaults, when not a key
	Stage bool   // an earlier stage (FROM build) or scratch: nothing to fetch
}

var fromVar = regexp.MustCompile(`\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))`)

// Froms reads the FROM lines of a Dockerfile: line continuations (with the
// escape directive's character), comments, global ARG defaults (an ARG
// before the first FROM) and stage names, as BuildKit reads them for the
// image each stage starts from. It is written here rather than taken from
// BuildKit's parser because that module brings protobuf and a newer
// docker/cli with it, for the dozen rules below.
//
// A ${<KEY>_IMAGE} argument is the harness's: it names an images key. An
// image that resolves to neither a key nor an earlier stage nor scratch is
// one the harness does not control: it must be on the engine or pulled.
func Froms(dockerfile []byte) ([]From, error) {
	lines := strings.Split(strings.ReplaceAll(string(dockerfile), "\r\n", "\n"), "\n")
	escape := escapeDirective(lines)
	args := map[string]string{} // global ARG defaults
	stages := map[string]bool{"scratch": true}
	var froms []From
	seenFrom := false
	for i := 0; i < len(lines); i++ {
		start := i
		t := strings.TrimSpace(lines[i])
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		t, i = joinContinued(lines, i, t, escape)
		word, rest, _ := strings.Cut(t, " ")
		rest = strings.TrimSpace(rest)
		switch strings.ToUpper(word) {
		case "ARG":
			if seenFrom {
				continue // a stage's ARG: FROM lines do not see it
			}
			for _, a := range strings.Fields(rest) {
				name, def, _ := strings.Cut(a, "=")
				args[name] = strings.Trim(def, `"'`)
			}
		case "FROM":
			seenFrom = true
			f, err := fromLine(start+1, rest, args, stages)
			if err != nil {
				return nil, err
			}
			froms = append(froms, f)
		}
	}
	return froms, nil
}

// escapeDirective returns the escape character of a Dockerfile's parser
// directives (leading comments of the form "# key=value"): a backquote
// when one says so, else a backslash.
func escapeDirective(lines []string) byte {
	escape := byte('\\')
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "#") {
			break
		}
		k, v, ok := strings.Cut(strings.TrimSpace(strings.TrimPrefix(t, "#")), "=")
		if !ok {
			break
		}
		if strings.EqualFold(strings.TrimSpace(k), "escape") && strings.TrimSpace(v) == "`" {
			escape = '`'
		}
	}
	return escape
}

// joinContinued joins to t, the trimmed line i, the lines it continues
// with the escape character; comment lines inside a continuation are
// dropped. It returns the joined instruction and the index of its last
// line.
func joinContinued(lines []string, i int, t string, escape byte) (string, int) {
	for strings.HasSuffix(t, string(escape)) && i+1 < len(lines) {
		t = strings.TrimSuffix(t, string(escape))
		i++
		next := strings.TrimSpace(lines[i])
		for (next == "" || strings.HasPrefix(next, "#")) && i+1 < len(lines) {
			i++
			next = strings.TrimSpace(lines[i])
		}
		t += " " + next
	}
	return t, i
}

// fromLine reads the FROM instruction at 1-based line with arguments rest,
// resolving its image with the global ARG defaults args and marking it a
// stage when it names one of stages; it adds the stage it names (AS name)
// to stages.
func fromLine(line int, rest string, args map[string]string, stages map[string]bool) (From, error) {
	fields := strings.Fields(rest)
	for len(fields) > 0 && strings.HasPrefix(fields[0], "--") {
		fields = fields[1:] // --platform=…
	}
	if len(fields) == 0 {
		return From{}, fmt.Errorf("line %d: FROM without an image", line)
	}
	f := From{Line: line, Raw: fields[0]}
	var unresolved string
	f.Image = fromVar.ReplaceAllStringFunc(f.Raw, func(v string) string {
		m := fromVar.FindStringSubmatch(v)
		name, op, word := m[1]+m[4], m[2], m[3]
		if key, ok := strings.CutSuffix(name, "_IMAGE"); ok && f.Raw == v {
			f.Key = strings.ToLower(key)
			return v
		}
		val, set := args[name]
		switch {
		case op == ":-" && val == "", op == "-" && !set:
			return word
		case op == ":+" && val != "", op == "+" && set:
			return word
		case op == ":+", op == "+":
			return ""
		}
		if val == "" {
			unresolved = name
		}
		return val
	})
	if f.Key != "" {
		f.Image = ""
	} else if unresolved != "" {
		return From{}, fmt.Errorf("line %d: FROM %s: ARG %s has no default, and the harness passes only <KEY>_IMAGE build arguments", f.Line, f.Raw, unresolved)
	}
	f.Stage = f.Key == "" && stages[strings.ToLower(f.Image)]
	if len(fields) >= 3 && strings.EqualFold(fields[1], "AS") {
		stages[strings.ToLower(fields[2])] = true
	}
	return f, nil
}
