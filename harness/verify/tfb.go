package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	xhtml "golang.org/x/net/html"

	"github.com/webbench/webbench/harness/matrix"
)

// TechEmpower's limits: World holds ids 1..10,000 with random numbers in
// the same range, and the queries parameter is clamped to 1..500.
const (
	WorldRows  = 10000
	MinQueries = 1
	MaxQueries = 500
)

// QueryCases are the values of the queries parameter TFB's verification
// asks every queries and updates server with before measuring it (its
// query.py and update.py, in its order): within the range, below it, not a
// number, above it, and empty. FollowUp asks them.
var QueryCases = []string{"2", "0", "foo", "501", ""}

// Clamp is the number of rows TFB's rules require for a queries parameter
// q: q within 1..500, the nearer bound outside it, and 1 for anything that
// is not an integer (absent, empty, "foo").
func Clamp(q string) int {
	n, err := strconv.Atoi(q)
	if err != nil {
		return MinQueries
	}
	return min(max(n, MinQueries), MaxQueries)
}

// Rule names the rule of TFB's that an answer broke: what a test or a
// report matches, never the English of the detail.
type Rule string

// The rules TFB's verification holds a database test's answer to.
const (
	RuleShape       Rule = "shape"        // not a JSON object, or an array of them
	RuleKeys        Rule = "keys"         // a row without exactly id and randomNumber
	RuleRange       Rule = "range"        // a row's id or randomNumber not an integer in 1..10,000
	RuleCount       Rule = "count"        // not the clamped number of rows
	RuleContentType Rule = "content-type" // not the Content-Type TFB accepts for the test (contentTypes)
	RuleServer      Rule = "server"       // no Server header
	RuleDate        Rule = "date"         // no Date header, or one that is not an HTTP date
	RuleDateCached  Rule = "date-cached"  // the same Date on two answers DateGap apart
	RuleStatus      Rule = "status"       // a further request (FollowUp's) got no answer, or not 200
	RuleUTF8        Rule = "utf-8"        // fortunes not UTF-8
	RulePage        Rule = "page"         // fortunes not TFB's page once normalised
	RuleEscaped     Rule = "escaped"      // a fortune's markup characters sent as they are, not HTML-escaped
	RuleWritten     Rule = "written"      // updates answered, but the database shows no row of World written
)

// Problem is one broken rule, with what was seen.
type Problem struct {
	Rule   Rule
	Detail string
}

// String is the problem as a cell's reason words it: the rule's name,
// then what was seen; a problem of no named rule is its detail alone.
func (p Problem) String() string {
	if p.Rule == "" {
		return p.Detail
	}
	return string(p.Rule) + ": " + p.Detail
}

// Texts are ps as Check words its problems.
func Texts(ps []Problem) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}

func problem(r Rule, format string, args ...any) Problem {
	return Problem{Rule: r, Detail: fmt.Sprintf(format, args...)}
}

// CheckTFB checks r by the rules of test t, whose Queries subst resolves:
// its headers (Server, Date, Content-Type as TFB wants them), then its
// body. Status is Check's; the rules that need more than one answer are
// FollowUp's.
func CheckTFB(t matrix.TFB, r Response, subst func(string) string) []Problem {
	re, ok := contentTypes[t.Test]
	if !ok {
		return []Problem{problem(RuleShape, "unknown TFB test %q", t.Test)}
	}
	problems := headers(t.Test, re, r.Header)
	switch t.Test {
	case matrix.TFBDB:
		var row map[string]json.RawMessage
		if err := json.Unmarshal(r.Body, &row); err != nil {
			return append(problems, problem(RuleShape, "db: body is not a JSON object (%v): %q", err, clip(r.Body)))
		}
		return append(problems, worldRow("db", row)...)
	case matrix.TFBQueries, matrix.TFBUpdates:
		return append(problems, worldRows(t.Test, Clamp(subst(t.Queries)), r.Body)...)
	}
	return append(problems, fortunes(r.Body)...)
}

// contentTypes are the Content-Type values TFB's verification accepts for
// each test, as its own regular expressions (verify_headers in TFB's
// toolset/test_types/verifications.py): JSON with no charset or UTF-8,
// HTML with UTF-8 only, both spelled as TFB spells them.
var contentTypes = map[string]*regexp.Regexp{
	matrix.TFBDB:       jsonType,
	matrix.TFBQueries:  jsonType,
	matrix.TFBUpdates:  jsonType,
	matrix.TFBFortunes: regexp.MustCompile(`^text/html; ?charset=(UTF|utf)-8$`),
}

var jsonType = regexp.MustCompile(`^application/json(; ?charset=(UTF|utf)-8)?$`)

// headers checks what TFB requires of every answer's headers: a Server
// header, a Date header that is an HTTP date, and a Content-Type that
// contentType matches.
func headers(test string, contentType *regexp.Regexp, h http.Header) []Problem {
	var problems []Problem
	if h.Get("Server") == "" {
		problems = append(problems, problem(RuleServer, "%s: no Server header: TFB requires one", test))
	}
	switch d := h.Get("Date"); {
	case d == "":
		problems = append(problems, problem(RuleDate, "%s: no Date header: TFB requires one", test))
	default:
		if _, err := http.ParseTime(d); err != nil {
			problems = append(problems, problem(RuleDate, "%s: Date %q is not an HTTP date (RFC 9110 §5.6.7)", test, d))
		}
	}
	if ct := h.Get("Content-Type"); !contentType.MatchString(ct) {
		problems = append(problems, problem(RuleContentType, "%s: content type %q, want one TFB accepts (%s)", test, ct, contentType))
	}
	return problems
}

// worldRows checks a queries or updates answer: a JSON array (even of one)
// of exactly want World rows.
func worldRows(test string, want int, body []byte) []Problem {
	var rows []map[string]json.RawMessage
	if err := json.Unmarshal(body, &rows); err != nil {
		return []Problem{problem(RuleShape, "%s: body is not a JSON array of objects (%v): %q", test, err, clip(body))}
	}
	if len(rows) != want {
		return []Problem{problem(RuleCount, "%s: %d rows, want %d", test, len(rows), want)}
	}
	for i, row := range rows {
		if p := worldRow(fmt.Sprintf("%s: row %d", test, i), row); p != nil {
			return p
		}
	}
	return nil
}

// worldRow checks one World row: exactly the keys id and randomNumber
// (in any case, as TFB reads them), each an integer in 1..10,000.
func worldRow(where string, row map[string]json.RawMessage) []Problem {
	got := map[string]json.RawMessage{}
	for k, v := range row {
		got[strings.ToLower(k)] = v
	}
	if len(got) != 2 || got["id"] == nil || got["randomnumber"] == nil {
		return []Problem{problem(RuleKeys, "%s has keys %v, want id and randomNumber", where, slices.Sorted(maps.Keys(row)))}
	}
	var problems []Problem
	for _, k := range []string{"id", "randomnumber"} {
		var n int
		if err := json.Unmarshal(got[k], &n); err != nil {
			problems = append(problems, problem(RuleRange, "%s: %s is %s, not an integer", where, k, got[k]))
		} else if n < 1 || n > WorldRows {
			problems = append(problems, problem(RuleRange, "%s: %s %d is outside 1..%d", where, k, n, WorldRows))
		}
	}
	return problems
}

// Fortunes are the 12 rows of TFB's Fortune table by id, and the one every
// answer adds at request time (id 0).
var Fortunes = map[int]string{
	1:  "fortune: No such file or directory",
	2:  "A computer scientist is someone who fixes things that aren't broken.",
	3:  "After enough decimal places, nobody gives a damn.",
	4:  "A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1",
	5:  "A computer program does what you tell it to do, not what you want it to do.",
	6:  "Emacs is a nice operating system, but I prefer UNIX. — Tom Christaensen",
	7:  "Any program that runs right is obsolete.",
	8:  "A list is only as strong as its weakest link. — Donald Knuth",
	9:  "Feature: A bug with seniority.",
	10: "Computers make very fast, very accurate mistakes.",
	11: `<script>alert("This should not be displayed in a browser alert box.");</script>`,
	12: "フレームワークのベンチマーク",
	0:  "Additional fortune added at request time.",
}

// FortunesPage is the fortunes page TFB accepts, normalised: every row
// sorted by message, each message escaped.
func FortunesPage() string {
	ids := make([]int, 0, len(Fortunes))
	for id := range Fortunes {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b int) int { return strings.Compare(Fortunes[a], Fortunes[b]) })
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><title>Fortunes</title></head><body><table><tr><th>id</th><th>message</th></tr>")
	for _, id := range ids {
		fmt.Fprintf(&b, "<tr><td>%d</td><td>%s</td></tr>", id, escapeText(Fortunes[id]))
	}
	b.WriteString("</table></body></html>")
	return b.String()
}

// escapeText is the one escaped form a normalised page holds for a text.
var escapeText = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;").Replace

// ignoredTags are what TFB's parser leaves out of the comparison: what
// templating systems add on their own (meta, link, script, and the tbody
// and thead a browser would add).
var ignoredTags = map[string]bool{"meta": true, "link": true, "script": true, "thead": true, "tbody": true}

// NormalizeHTML is how TFB compares fortunes pages: a lowercased doctype,
// tags without their attributes, no comments, no text that is only
// whitespace (between tags), and every other text in one escaped form, so
// that &#39; and &apos;, or &mdash; and —, are the same. What a template
// adds on its own (ignoredTags, a script's content) is left out. Text that
// should have been escaped and was not is parsed as markup, and so differs.
func NormalizeHTML(page []byte) string {
	z := xhtml.NewTokenizer(bytes.NewReader(page))
	var b strings.Builder
	inScript := false
	for {
		tt := z.Next()
		switch tt {
		case xhtml.ErrorToken:
			return b.String()
		case xhtml.DoctypeToken:
			b.WriteString("<!doctype " + strings.ToLower(string(z.Text())) + ">")
		case xhtml.StartTagToken, xhtml.EndTagToken, xhtml.SelfClosingTagToken:
			name, _ := z.TagName()
			tag := string(name)
			if tag == "script" {
				inScript = tt == xhtml.StartTagToken
			}
			if ignoredTags[tag] {
				continue
			}
			if tt != xhtml.EndTagToken {
				b.WriteString("<" + tag + ">")
			}
			if tt != xhtml.StartTagToken {
				b.WriteString("</" + tag + ">")
			}
		case xhtml.TextToken:
			raw := string(z.Raw())
			if !inScript && strings.TrimSpace(raw) != "" {
				b.WriteString(escapeText(html.UnescapeString(raw)))
			}
		}
	}
}

// CheckWritten is TFB's rule that every update is written, as far as the
// database can tell it: answered update requests were measured, and
// changed is how many rows of World the database shows changed meanwhile.
// An answer alone cannot tell a server that writes from one that answers
// new numbers and keeps them; the database can. Any row changed passes:
// distinct rows changed do not grow with the requests (ids repeat), so no
// count of them proves every update was written.
func CheckWritten(answered, changed int64) []Problem {
	if answered > 0 && changed == 0 {
		return []Problem{problem(RuleWritten, "updates: the server answered %d update requests but the database shows no row written: TFB requires each update to be written", answered)}
	}
	return nil
}

// fortunes checks a fortunes body: UTF-8, equal to TFB's page once both
// are normalised. What it must be declared as is headers'.
func fortunes(body []byte) []Problem {
	var problems []Problem
	if !utf8.Valid(body) {
		return append(problems, problem(RuleUTF8, "fortunes: body is not UTF-8"))
	}
	problems = append(problems, unescaped(body)...)
	if got, want := NormalizeHTML(body), FortunesPage(); got != want {
		problems = append(problems, problem(RulePage, "fortunes: page differs from TFB's once normalised, %s", firstDiff(got, want)))
	}
	return problems
}

// unescaped names each fortune with markup characters (<, >, &) that the
// page holds as they are, where TFB requires them escaped (&lt;…): such
// a fortune parses as markup, and the page breaks the page rule too, but
// that rule's diff does not say why.
func unescaped(body []byte) []Problem {
	var out []Problem
	for _, id := range slices.Sorted(maps.Keys(Fortunes)) {
		m := Fortunes[id]
		if strings.ContainsAny(m, "<>&") && bytes.Contains(body, []byte(m)) {
			out = append(out, problem(RuleEscaped, "fortunes: fortune %d went out unescaped, as markup: %q; TFB requires every message HTML-escaped (%s)",
				id, m, escapeText(m)))
		}
	}
	return out
}

// firstDiff shows where got first departs from want, with a little of each.
func firstDiff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	for i > 0 && !utf8.RuneStart(want[min(i, len(want)-1)]) {
		i--
	}
	const context = 60
	return fmt.Sprintf("at byte %d got %q, want %q", i, excerpt(got, i, context), excerpt(want, i, context))
}

func excerpt(s string, i, n int) string {
	if i >= len(s) {
		return ""
	}
	end := min(i+n, len(s))
	for end < len(s) && !utf8.RuneStart(s[end]) {
		end++
	}
	return s[i:end]
}
