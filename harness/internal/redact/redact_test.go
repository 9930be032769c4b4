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

// An engine URL keeps its scheme, a login and its host; a password, even
// one holding / or #, and a user name that looks like a token go.
func TestURL(t *testing.T) {
	for in, want := range map[string]string{
		"tcp://bench:secret@10.0.0.5:2376":  "tcp://bench:xxxxx@10.0.0.5:2376",
		"ssh://bench@10.0.0.5":              "ssh://bench@10.0.0.5",
		"ssh://u:p/a#ss@h:22":               "ssh://u:xxxxx@h:22",
		"ssh://ghp_SECRETTOKEN1234567890@h": "ssh://xxxxx@h",
		"unix:///var/run/docker.sock":       "unix:///var/run/docker.sock",
		"desktop-linux":                     "desktop-linux",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}

// In running text (an SDK's error), every URL's secret and token-like
// query values go; the rest stays.
func TestText(t *testing.T) {
	for in, want := range map[string]string{
		"Get \"http://u:p%40ss@h:2375/_ping\": refused":            "Get \"http://u:xxxxx@h:2375/_ping\": refused",
		"https://h/v2/?token=abc&x=1":                              "https://h/v2/?token=xxxxx&x=1",
		"ssh://bench@10.0.0.5 and tcp://10.0.0.5:2375":             "ssh://bench@10.0.0.5 and tcp://10.0.0.5:2375",
		"dial ssh://ghp_SECRETTOKEN1234567890abcdef@h:22: refused": "dial ssh://xxxxx@h:22: refused",
		"exit 1: " + key: "exit 1: [PRIVATE KEY redacted]",
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}
