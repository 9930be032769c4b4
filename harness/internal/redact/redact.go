// Package redact removes secrets from text the harness keeps: a target's
// log lines and failure reasons end up in results.json, README.md and on
// stderr, and a target may print its TLS private key.
package redact

import "regexp"

// pemBlock is a PEM block, or the beginning of one cut off by the end of
// the text (a log's last lines may stop inside a key).
var pemBlock = regexp.MustCompile(`(?s)-----BEGIN ([A-Z0-9 ]+)-----.*?(-----END [A-Z0-9 ]+-----|\z)`)

// PEM is s with every PEM block (keys and certificates alike, since a
// certificate's block is not told from a key's by a reader skimming a
// failure) replaced by a note naming its type.
func PEM(s string) string {
	return pemBlock.ReplaceAllString(s, "[$1 redacted]")
}
