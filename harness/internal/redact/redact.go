// Package redact removes secrets from text the harness shows or keeps:
// engine URLs carry passwords and tokens, the Docker SDK repeats a host as
// it was given, and a target's log lines and failure reasons (which end up
// in results.json, README.md and on stderr) may hold its TLS private key.
package redact

import (
	"regexp"
	"strings"
)

// URL is an engine URL fit for a message: everything before the last @
// of its authority is the user's (a password may hold / and #, which
// url.Parse reads as the path's and the fragment's), so a password
// becomes xxxxx, and so does a user name that looks like a token.
func URL(spec string) string {
	scheme, rest, ok := strings.Cut(spec, "://")
	i := strings.LastIndex(rest, "@")
	if !ok || i < 0 {
		return spec
	}
	user := "xxxxx"
	if name, _, hasPass := strings.Cut(rest[:i], ":"); plainUser.MatchString(name) {
		user = name
		if hasPass {
			user += ":xxxxx"
		}
	}
	return scheme + "://" + user + rest[i:]
}

var (
	// plainUser is a user name that is no secret: a login, not a token.
	plainUser = regexp.MustCompile(`^[a-z_][a-z0-9_.-]{0,31}$`)
	// withUser is a URL in running text that carries a user part.
	withUser = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"']*@[^\s"'@]*`)
	// secretQuery is a token-like query parameter's value.
	secretQuery = regexp.MustCompile(`(?i)([?&](?:token|access_token|password|secret|key)=)[^&\s"']*`)
	// pemBlock is a PEM block, or the beginning of one cut off by the end
	// of the text (a log's last lines may stop inside a key).
	pemBlock = regexp.MustCompile(`(?s)-----BEGIN ([A-Z0-9 ]+)-----.*?(-----END [A-Z0-9 ]+-----|\z)`)
)

// Text is s with URL applied to every URL in it that carries a user part,
// token-like query values dropped and every PEM block (keys and
// certificates alike) replaced by a note naming its type.
func Text(s string) string {
	s = withUser.ReplaceAllStringFunc(s, URL)
	s = secretQuery.ReplaceAllString(s, "${1}xxxxx")
	return PEM(s)
}

// PEM is s with every PEM block replaced by a note naming its type.
func PEM(s string) string {
	return pemBlock.ReplaceAllString(s, "[$1 redacted]")
}
