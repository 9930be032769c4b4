package verify

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/webbench/webbench/harness/matrix"
)

// The rules of the workload scenarios (static files, compression,
// compute), named in a failed cell's reason as TFB's are.
const (
	RuleSHA256   Rule = "sha256"   // the body's SHA-256 is not the one the scenario declares
	RuleEncoding Rule = "encoding" // not encoded as asked, undecodable, or encoded unasked
	RuleCompute  Rule = "compute"  // not {"result": a*b+a-b} of the a and b asked
)

// maxDecoded bounds what a gzip body may decode to: a target's answer is
// checked, not a decompression bomb expanded.
const maxDecoded = 64 << 20

// decodeBody is r's body as e's other keys check it: gunzipped where e
// asks for gzip. An answer encoded other than e says, or one that does not
// decode, breaks RuleEncoding; ok is false when the body cannot be read.
func decodeBody(e matrix.Expect, r Response) (body []byte, problems []Problem, ok bool) {
	got := r.Header.Get("Content-Encoding")
	switch {
	case e.Encoding == "" && got != "" && got != "identity":
		return r.Body, []Problem{problem(RuleEncoding, "Content-Encoding %q on an answer the scenario expects unencoded: nothing asked for it", got)}, false
	case e.Encoding == "":
		return r.Body, nil, true
	case got != e.Encoding:
		return r.Body, []Problem{problem(RuleEncoding, "Content-Encoding %q, want %q: the request asked for it", got, e.Encoding)}, false
	}
	zr, err := gzip.NewReader(bytes.NewReader(r.Body))
	if err == nil {
		body, err = io.ReadAll(io.LimitReader(zr, maxDecoded))
	}
	if err != nil {
		return r.Body, []Problem{problem(RuleEncoding, "a %s body of %d bytes that does not decode: %v", e.Encoding, len(r.Body), err)}, false
	}
	return body, nil, true
}

// checkSHA256 holds body to the digest want (lowercase hex).
func checkSHA256(want string, body []byte) []Problem {
	sum := sha256.Sum256(body)
	if got := hex.EncodeToString(sum[:]); got != want {
		return []Problem{problem(RuleSHA256, "a body of %d bytes with SHA-256 %s, want %s", len(body), got, want)}
	}
	return nil
}

// computeResult reads a compute answer: a JSON object of the one key
// result, an integer.
func computeResult(body []byte) (int64, []Problem) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil || len(obj) != 1 || obj["result"] == nil {
		return 0, []Problem{problem(RuleCompute, "want a JSON object of one key, result, got %q", clip(body))}
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(obj["result"])), 10, 64)
	if err != nil {
		return 0, []Problem{problem(RuleCompute, "result %s is not an integer", obj["result"])}
	}
	return n, nil
}

// Computed is what the compute scenario answers for a and b.
func Computed(a, b int64) int64 { return a*b + a - b }

// Asker asks url once, sending headers ("Name: value"; none when nil), and
// returns the answer, as the cell's first answer was asked otherwise. Its
// error is a failure of the harness to ask, not of the server to answer.
type Asker func(ctx context.Context, url string, headers []string) (Response, error)

// Workload makes the further asks the workload scenarios' rules need
// beyond the first answer, and checks their answers.
type Workload struct {
	Ask Asker
	// Rand picks compute's other parameters; nil: a source of its own.
	Rand *rand.Rand
}

// computeAsks is how many other parameter sets compute is asked at.
const computeAsks = 2

// Check asks what sc's expectation needs beyond first, the answer to url
// (the cell's URL, asked with sc's headers), which broke none of Check's
// rules, and returns the rules the answers broke: for encoding, url once
// more without any header, whose answer must come unencoded and pass the
// other keys; for compute, first's result against url's a and b, then
// url at computeAsks other random a and b, each answer checked. The
// error is Ask's: nothing was judged.
func (w Workload) Check(ctx context.Context, sc matrix.Scenario, url string, first Response) ([]Problem, error) {
	e := sc.Expect
	var problems []Problem
	if e.Encoding != "" {
		r, err := w.Ask(ctx, url, nil)
		if err != nil {
			return nil, err
		}
		plain := e
		plain.Encoding = ""
		for _, p := range checkAll(plain, r) {
			problems = append(problems, problem(p.Rule, "asked without %s: %s", headerNames(sc), p.Detail))
		}
	}
	if e.Compute {
		more, err := w.compute(ctx, sc, url, first)
		if err != nil {
			return nil, err
		}
		problems = append(problems, more...)
	}
	return problems, nil
}

// compute checks first against url's a and b, then asks url at
// computeAsks other random pairs and checks each answer.
func (w Workload) compute(ctx context.Context, sc matrix.Scenario, raw string, first Response) ([]Problem, error) {
	u, err := url.Parse(raw)
	var a, b int64
	if err == nil {
		a, err = strconv.ParseInt(u.Query().Get("a"), 10, 64)
	}
	if err == nil {
		b, err = strconv.ParseInt(u.Query().Get("b"), 10, 64)
	}
	if err != nil {
		return []Problem{problem(RuleCompute, "the URL %s holds no integers a and b to check the answer by", raw)}, nil
	}
	if p := computeProblems(sc.Expect, first, a, b); len(p) > 0 {
		return p, nil
	}
	rnd := w.Rand
	if rnd == nil {
		rnd = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	seen := map[[2]int64]bool{{a, b}: true}
	for len(seen) < computeAsks+1 {
		x, y := 2+rnd.Int64N(9998), 2+rnd.Int64N(9998)
		if seen[[2]int64{x, y}] {
			continue
		}
		seen[[2]int64{x, y}] = true
		q := u.Query()
		q.Set("a", strconv.FormatInt(x, 10))
		q.Set("b", strconv.FormatInt(y, 10))
		u.RawQuery = q.Encode()
		r, err := w.Ask(ctx, u.String(), sc.HeaderLines())
		if err != nil {
			return nil, err
		}
		if p := computeProblems(sc.Expect, r, x, y); len(p) > 0 {
			return p, nil
		}
	}
	return nil, nil
}

// computeProblems checks r, the answer at a and b, by every rule of e.
func computeProblems(e matrix.Expect, r Response, a, b int64) []Problem {
	where := fmt.Sprintf("a=%d&b=%d", a, b)
	if p := checkAll(e, r); len(p) > 0 {
		for i := range p {
			p[i].Detail = where + ": " + p[i].Detail
		}
		return p
	}
	body, _, _ := decodeBody(e, r)
	got, _ := computeResult(body)
	if want := Computed(a, b); got != want {
		return []Problem{problem(RuleCompute, "%s: result %d, want %d (a*b+a-b): an answer not computed from the request's parameters", where, got, want)}
	}
	return nil
}

// checkAll is check's problems of r by e, whose params are resolved.
func checkAll(e matrix.Expect, r Response) []Problem {
	problems, _ := check(e, r, func(s string) string { return s })
	return problems
}

// headerNames says which headers of sc's an ask left out.
func headerNames(sc matrix.Scenario) string {
	names := slices.Sorted(maps.Keys(sc.Headers))
	if len(names) == 0 {
		return "the scenario's headers"
	}
	return strings.Join(names, ", ")
}
