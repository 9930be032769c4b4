package redact

import (
	"strings"
	"testing"
)

const key = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgevZzL1gdAFr88hb2
OF/2NxApJCzGCEDdfSp6VQO30hyhRANCAAQRWz+jn65BtOMvdyHKcvjBeBSDZH2r
-----END PRIVATE KEY-----`

// A key printed whole, or cut off by the end of a log, leaves no line of
// its body; the text around it stays.
func TestPEM(t *testing.T) {
	for _, in := range []string{
		"starting\n" + key + "\nexit 1",
		"starting\n" + key[:120],
		"a\n" + key + "\nb\n" + strings.Replace(key, "PRIVATE KEY", "EC PRIVATE KEY", 2),
	} {
		out := PEM(in)
		if strings.Contains(out, "MIGHAgEA") || strings.Contains(out, "OF/2NxAp") || !strings.Contains(out, "PRIVATE KEY redacted]") {
			t.Errorf("%q\n→ %q", in, out)
		}
		if !strings.HasPrefix(out, strings.SplitN(in, "\n", 2)[0]) {
			t.Errorf("the text before the key is gone: %q", out)
		}
	}
	if out := PEM("no secrets here"); out != "no secrets here" {
		t.Errorf("plain text changed: %q", out)
	}
	if out := PEM("starting\n" + key + "\nexit 1"); !strings.HasSuffix(out, "\nexit 1") {
		t.Errorf("the text after the key is gone: %q", out)
	}
}
